package io.blockcache.host;

import io.blockcache.backing.BackingLocation;
import io.blockcache.device.BlockDevice;
import io.blockcache.device.FileDevice;
import io.blockcache.engine.BackingSpec;
import io.blockcache.engine.Outcome;
import io.blockcache.log.EventName;
import io.blockcache.log.LogEvent;
import io.blockcache.loop.Prng;
import io.blockcache.volume.CacheMode;
import io.blockcache.volume.Volume;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Volumes added to, removed from and grown on a running {@link CacheHost} (docs/OPERATIONS.md "Volumes"): opens or
 * creates the backing store, asks the engine to attach, detach or grow ({@code engine.CacheSet}), and keeps the host's
 * device lists in step; a refused add closes what it opened and deletes what it created.
 *
 * <p>Thread rule: a thread other than the loop's (it waits for the loop); one change at a time (synchronized).
 */
final class HostVolumes {
    private final CacheHost host;
    private final List<BlockDevice> devices;
    private final List<BackingSpec> backings;
    private final HostDevices opener;

    HostVolumes(CacheHost host, List<BlockDevice> devices, List<BackingSpec> backings, HostDevices opener) {
        this.host = host;
        this.devices = devices;
        this.backings = backings;
        this.opener = opener;
    }

    /** See {@link CacheHost#addVolume}. */
    synchronized Volume add(String name, BackingLocation location, long volumeBytes, long logBytes, boolean inPlace,
                            CacheMode mode, boolean force) throws HostException {
        UUID cacheSetUuid = host.<UUID>onLoop(done -> done.accept(host.cacheSet().volume(name) != null ? null
                : host.cacheSet().superblock().cacheSetUuid()));
        if (cacheSetUuid == null) {
            throw new HostException("a volume named \"" + name + "\" is attached already");
        }
        List<BlockDevice> opened = new ArrayList<>();
        List<Path> created = new ArrayList<>();
        Outcome<Volume> added = null;
        try {
            BackingSpec spec = opener.openAdded(name, location, new HostDevices.Added(volumeBytes, logBytes, inPlace),
                    force, cacheSetUuid, opened, created);
            Prng ids = new Prng(new SecureRandom().nextLong()); // UUIDs must differ between devices
            // Recorded in the superblock, so that the next start finds the store without a --backing for it.
            String recorded = location instanceof BackingLocation.File file ? file.path().toAbsolutePath().toString()
                    : location.display();
            added = host.onLoop(done -> host.cacheSet().addVolume(spec, mode, recorded, ids, done));
            if (!added.isOk()) {
                throw new HostException("cannot add volume \"" + name + "\": " + added.error());
            }
            devices.addAll(opened);
            backings.add(spec);
            host.log().log(LogEvent.of(EventName.HOST_VOLUME_ADDED, "volume \"" + name + "\" added, backing "
                    + recorded).with("volume", name));
            return added.value();
        } finally {
            if (added == null || !added.isOk()) {
                undo(opened, created);
            }
        }
    }

    /**
     * Closes what a refused add opened and deletes what it created (an S3 volume object and owner record included): a
     * refusal leaves nothing behind.
     */
    private void undo(List<BlockDevice> opened, List<Path> created) {
        opener.withdrawS3(opened);
        try {
            host.<Boolean>onLoop(done -> {
                opened.forEach(BlockDevice::close);
                done.accept(true);
            });
        } catch (HostException e) {
            // the loop is gone: the devices close with it
        }
        for (Path path : created) {
            try {
                Files.deleteIfExists(path);
            } catch (IOException e) {
                // left behind, and harmless: an unattached file; the next add of the name takes it again
            }
        }
    }

    /** See {@link CacheHost#removeVolume}. */
    synchronized void remove(String name, boolean discardDirty) throws HostException {
        Outcome<Void> removed = host.onLoop(done -> host.cacheSet().removeVolume(name, discardDirty, done));
        if (!removed.isOk()) {
            if (host.<Boolean>onLoop(done -> done.accept(closed(name)))) {
                // Refused after it was closed: it serves nothing until the next start, which opens it again.
                host.log().log(LogEvent.of(EventName.HOST_VOLUME_DETACH_FAILED, "volume \"" + name + "\" is closed"
                        + " and still attached: serve no longer exports it; restart serve to serve it again, then"
                        + " remove it again if wanted (" + removed.error() + ")").with("volume", name)
                        .with("reason", removed.error()));
            }
            throw new HostException(removed.error());
        }
        host.log().log(LogEvent.of(EventName.HOST_VOLUME_REMOVED, "volume \"" + name + "\" removed"
                + (discardDirty ? " (its dirty data discarded)" : "")).with("volume", name));
        BackingSpec spec = backings.stream().filter(b -> b.name().equals(name)).findFirst().orElse(null);
        if (spec == null) {
            return;
        }
        backings.remove(spec);
        host.<Boolean>onLoop(done -> {
            spec.device().close();
            if (spec.mapDevice() != null) {
                spec.mapDevice().close();
            }
            done.accept(true);
        });
        devices.remove(spec.device());
        if (spec.mapDevice() != null) {
            devices.remove(spec.mapDevice());
        }
        // A clean detach swept the map empty: the file would only be a stray for `check --damage` to read. After a
        // discard it stays: it names the regions whose backing data is older than what the cache acknowledged.
        Path map = opener.mapFile(name);
        if (!discardDirty && map != null) {
            try {
                Files.deleteIfExists(map);
            } catch (IOException e) {
                // harmless: a map file of no attached volume; the next add of the name writes it anew
            }
        }
    }

    /** Whether volume {@code name} is attached and closed (a detach that failed after closing it). Loop thread. */
    private boolean closed(String name) {
        Volume volume = host.cacheSet().volume(name);
        return volume != null && volume.isClosed();
    }

    /** See {@link CacheHost#growVolume}. */
    synchronized void grow(String name, long sizeBytes) throws HostException {
        BackingSpec spec = backings.stream().filter(b -> b.name().equals(name)).findFirst()
                .orElseThrow(() -> new HostException("no volume named \"" + name + "\""));
        Long dataOffset = host.<Long>onLoop(done -> done.accept(host.cacheSet().superblock().backings().stream()
                .filter(slot -> slot.exportName().equals(name)).findFirst().map(slot -> slot.dataOffsetBytes())
                .orElse(-1L)));
        if (spec.device() instanceof FileDevice file && dataOffset > 0
                && file.sizeBytes() < dataOffset + sizeBytes && sizeBytes > 0) {
            try {
                file.grow(dataOffset + sizeBytes);
            } catch (IOException e) {
                throw new HostException("cannot grow the backing file of \"" + name + "\" to " + (dataOffset
                        + sizeBytes) + " bytes: " + e.getMessage());
            }
        }
        Outcome<Void> grown = host.onLoop(done -> host.cacheSet().growVolume(name, sizeBytes, done));
        if (!grown.isOk()) {
            throw new HostException(grown.error());
        }
    }
}
