package io.blockcache.backinglog;

import io.blockcache.device.BlockDevice;
import io.blockcache.format.BackingHeader;
import io.blockcache.format.BackingLogLayout;
import io.blockcache.loop.Checks;
import java.util.Objects;
import java.util.UUID;

/**
 * Where a backing device's log and volume are, from its header (docs/FORMAT.md §4.4): the log at
 * {@link BackingHeader#LOG_OFFSET_BYTES}, the volume's data at {@code dataOffsetBytes}.
 *
 * @param backingUuid the device's identity: a commit block of another identity is not this log's
 * @param layout the log's size and inner layout
 * @param dataOffsetBytes device byte of volume byte 0
 * @param volumeSizeBytes size of the volume: no record may reach past it
 */
public record BackingLogRegion(UUID backingUuid, BackingLogLayout layout, long dataOffsetBytes,
                               long volumeSizeBytes) {
    /** Validates that the log ends where the data starts. */
    public BackingLogRegion {
        Objects.requireNonNull(backingUuid, "backingUuid");
        Objects.requireNonNull(layout, "layout");
        Checks.require(dataOffsetBytes == BackingHeader.LOG_OFFSET_BYTES + layout.logSizeBytes(),
                "the log [%d, + %d) must end where the data starts (%d)", BackingHeader.LOG_OFFSET_BYTES,
                layout.logSizeBytes(), dataOffsetBytes);
        Checks.require(volumeSizeBytes > 0, "volumeSizeBytes must be positive, got %d", volumeSizeBytes);
    }

    /** The region of a device with {@code header}, or null if it has no log. */
    public static BackingLogRegion of(BackingHeader header) {
        if (!header.hasLog()) {
            return null;
        }
        return new BackingLogRegion(header.backingUuid(), new BackingLogLayout(header.logSizeBytes()),
                header.dataOffsetBytes(), header.volumeSizeBytes());
    }

    /** Device byte of log byte {@code logRelativeBytes}. */
    public long logBytes(long logRelativeBytes) {
        return BackingHeader.LOG_OFFSET_BYTES + logRelativeBytes;
    }

    /** Device byte of volume sector {@code volumeSector}. */
    public long volumeBytes(long volumeSector) {
        return dataOffsetBytes + volumeSector * BlockDevice.SECTOR_BYTES;
    }

    /** Sectors of the volume. */
    public long volumeSectors() {
        return volumeSizeBytes / BlockDevice.SECTOR_BYTES;
    }
}
