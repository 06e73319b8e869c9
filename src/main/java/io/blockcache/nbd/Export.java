package io.blockcache.nbd;

import io.blockcache.volume.Volume;
import java.util.Objects;

/**
 * One named export: the volume it serves, who may use it ({@link ExportAccess}) and the sector range lock that all
 * its connections share (the lock must be per export, not per connection, so that read-modify-writes from
 * different connections exclude each other). Thread rule: {@link #lock()} only on the volumes' loop thread.
 */
final class Export {
    private final String name;
    private final Volume volume;
    private final ExportAccess access;
    private final SectorRangeLock lock = new SectorRangeLock();

    Export(String name, Volume volume) {
        this(name, volume, ExportAccess.OPEN);
    }

    Export(String name, Volume volume, ExportAccess access) {
        this.name = Objects.requireNonNull(name, "name");
        this.volume = Objects.requireNonNull(volume, "volume");
        this.access = Objects.requireNonNull(access, "access");
    }

    String name() {
        return name;
    }

    Volume volume() {
        return volume;
    }

    ExportAccess access() {
        return access;
    }

    SectorRangeLock lock() {
        return lock;
    }

    /** A line for NBD_INFO_DESCRIPTION and LIST. */
    String description() {
        return "blockcache volume " + volume.volumeId() + " (" + volume.mode() + ")";
    }
}
