package io.blockcache.engine;

import io.blockcache.device.IoCallback;
import io.blockcache.format.AttachedBacking;
import io.blockcache.format.BackingHeader;
import io.blockcache.format.CacheSuperblock;
import io.blockcache.format.DamageMapGeometry;
import io.blockcache.index.ExtentIndex;
import io.blockcache.loop.Prng;
import io.blockcache.volume.CacheMode;
import io.blockcache.volume.Volume;
import io.blockcache.volume.VolumeIndex;
import io.blockcache.writeback.Writeback;
import io.blockcache.writeback.WritebackSettings;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * Attaches a backing device to a running cache set as a new volume (docs/FORMAT.md §3 "Volumes attached and detached
 * live"). Order, so that a crash anywhere leaves the set as it was or with the volume attached, never between:
 * <ol>
 *   <li>the backing header and an empty damage map on the device (and into the map file), flushed — a device no
 *       superblock names yet, which a later add takes again; with a backing log (docs/FORMAT.md §4.4), an old log's
 *       committed group put in place first and the new log retired, as a format does ({@link BackingHeaderWrite});
 *       a store whose header puts its data elsewhere is refused; a store cached in place gets nothing written, its
 *       fingerprint is taken instead ({@link #attachInPlace});</li>
 *   <li>both superblock copies with the new slot (A, flush, B, flush): the commit point;</li>
 *   <li>the volume wired in memory (index, checkpoint runs, GC, knobs) and its writeback started. Nothing of it is
 *       journaled before step 2 is durable, so replay never meets a volume id the superblock does not name.</li>
 * </ol>
 *
 * <p>Thread rule: the cache set's loop thread; one volume change at a time ({@link CacheSet#addVolume}).
 */
final class VolumeAttacher {
    private VolumeAttacher() {
    }

    static void attach(CacheSet set, BackingSpec spec, CacheMode mode, String location, Prng ids,
                       Consumer<Outcome<Volume>> done) {
        String problem = problem(set, spec, location);
        if (problem != null) {
            set.loop().execute(() -> done.accept(Outcome.failed(problem)));
            return;
        }
        CacheSuperblock superblock = set.superblock();
        UUID backingUuid = CacheFormatter.uuid(ids);
        if (spec.inPlace()) {
            attachInPlace(set, spec, mode, location, backingUuid, done);
            return;
        }
        long logBytes = spec.logSizeBytes();
        long volumeBytes = Geometry.volumeBytes(spec.device().sizeBytes(), logBytes);
        AttachedBacking slot = new AttachedBacking(backingUuid, volumeBytes,
                BackingHeader.DEFAULT_DATA_OFFSET_BYTES + logBytes, freeVolumeId(superblock), spec.name())
                .withLocation(location, VolumeModes.code(mode));
        BackingHeader header = new BackingHeader(backingUuid, superblock.cacheSetUuid(), slot.dataOffsetBytes(),
                slot.volumeSizeBytes(), logBytes);
        byte[] headerAndMap = CacheFormatter.headerAndEmptyMap(header);
        String who = "volume \"" + spec.name() + "\"";
        // A store added again keeps its data where its header says, and an old log's group goes in place first: the
        // checks and writes of a format (BackingHeaderWrite).
        BackingHeaderWrite.layoutProblem(spec, "Add it", moved -> {
            if (moved != null) {
                done.accept(Outcome.failed(moved));
                return;
            }
            BackingHeaderWrite.write(spec, header, headerAndMap, failure -> {
                if (failure != null) {
                    done.accept(Outcome.failed(who + ": " + failure + "; the volume is not attached"));
                    return;
                }
                writeMapFile(set, spec, headerAndMap, step(done, who + ": writing its damage map file", () -> {
                    List<AttachedBacking> slots = new ArrayList<>(superblock.backings());
                    slots.add(slot);
                    set.rewriteSlots(slots, step(done, who + ": writing the superblock that names it",
                            () -> wire(set, spec, slot, headerAndMap, VolumeModes.of(slot, set.options()), done)));
                }));
            });
        });
    }

    /**
     * A store cached in place (docs/FORMAT.md §4.2): nothing is written on it; its fingerprint (size and sampled
     * blocks, reads only) goes into the new slot, and the superblock that names it is the commit point, as at a
     * format. A crash before it leaves the store untouched and the set as it was.
     */
    private static void attachInPlace(CacheSet set, BackingSpec spec, CacheMode mode, String location,
                                      UUID backingUuid, Consumer<Outcome<Volume>> done) {
        BackingFingerprint.of(spec.device(), fingerprint -> {
            if (!fingerprint.isOk()) {
                done.accept(Outcome.failed("volume \"" + spec.name() + "\": " + fingerprint.error()
                        + "; the volume is not attached"));
                return;
            }
            CacheSuperblock superblock = set.superblock();
            AttachedBacking slot = new AttachedBacking(backingUuid, spec.device().sizeBytes(),
                    AttachedBacking.IN_PLACE_DATA_OFFSET_BYTES, freeVolumeId(superblock), spec.name(),
                    fingerprint.value()).withLocation(location, VolumeModes.code(mode));
            List<AttachedBacking> slots = new ArrayList<>(superblock.backings());
            slots.add(slot);
            set.rewriteSlots(slots, step(done, "volume \"" + spec.name() + "\": writing the superblock that names it",
                    () -> wire(set, spec, slot, null, VolumeModes.of(slot, set.options()), done)));
        });
    }

    /** Why {@code spec} cannot be attached to {@code set}, or null. */
    private static String problem(CacheSet set, BackingSpec spec, String location) {
        CacheSuperblock superblock = set.superblock();
        if (set.slotOf(spec.name()) >= 0) {
            return "a volume named \"" + spec.name() + "\" is attached already";
        }
        if (superblock.backings().size() >= CacheSuperblock.BACKINGS_MAX) {
            return "a cache set holds at most " + CacheSuperblock.BACKINGS_MAX + " volumes; remove one first";
        }
        if (spec.name().getBytes(StandardCharsets.UTF_8).length > AttachedBacking.EXPORT_NAME_BYTES_MAX) {
            return "volume name \"" + spec.name() + "\" is longer than " + AttachedBacking.EXPORT_NAME_BYTES_MAX
                    + " bytes";
        }
        if (location.getBytes(StandardCharsets.UTF_8).length > AttachedBacking.LOCATION_BYTES_MAX) {
            return "the location of \"" + spec.name() + "\" is longer than " + AttachedBacking.LOCATION_BYTES_MAX
                    + " bytes, which the cache cannot record; use a shorter path";
        }
        if (spec.inPlace()) {
            long deviceBytes = spec.device().sizeBytes();
            if (deviceBytes < BackingFingerprint.DEVICE_BYTES_MIN || deviceBytes % 4096 != 0
                    || deviceBytes / 512 > ExtentIndex.SECTOR_LIMIT) {
                return "backing store of \"" + spec.name() + "\" has " + deviceBytes + " bytes: cached in place, it"
                        + " needs a whole number of 4 KiB blocks, at most 2^47 sectors";
            }
            return null;
        }
        long volumeBytes = Geometry.volumeBytes(spec.device().sizeBytes(), spec.logSizeBytes());
        if (volumeBytes < 4096 || volumeBytes % 4096 != 0) {
            return "backing store of \"" + spec.name() + "\" has " + spec.device().sizeBytes() + " bytes: it needs its"
                    + " 1 MiB header" + (spec.logSizeBytes() > 0 ? ", its " + (spec.logSizeBytes() >> 20)
                    + " MiB backing log" : "") + " and a whole number of 4 KiB blocks after it";
        }
        if (volumeBytes / 512 > ExtentIndex.SECTOR_LIMIT) {
            return "backing store of \"" + spec.name() + "\" is too large: a volume is at most 2^47 sectors";
        }
        return null;
    }

    /** The lowest volume id no slot uses (journal records carry it; {@code VolumeConfig} allows 0..15). */
    private static int freeVolumeId(CacheSuperblock superblock) {
        boolean[] used = new boolean[CacheSuperblock.BACKINGS_MAX];
        for (AttachedBacking slot : superblock.backings()) {
            used[slot.volumeId()] = true;
        }
        int id = 0;
        while (used[id]) {
            id++;
        }
        return id;
    }

    /** The map file, when the map lives in one: the same bytes as the device's first ones, so open trusts it. */
    private static void writeMapFile(CacheSet set, BackingSpec spec, byte[] headerAndMap, IoCallback done) {
        if (spec.mapDevice() == null || !set.options().damageMap()) {
            set.loop().execute(() -> done.complete(io.blockcache.device.IoResult.OK));
            return;
        }
        DeviceBytes.writeAndFlush(spec.mapDevice(), 0, headerAndMap, done);
    }

    private static void wire(CacheSet set, BackingSpec spec, AttachedBacking slot, byte[] headerAndMap,
                             CacheMode mode, Consumer<Outcome<Volume>> done) {
        BackingSpec wrapped = VolumeWiring.wrapped(set.loop(), spec, set.options());
        ExtentIndex extents = new ExtentIndex(set.space(), set.options().verifyIndexEachOperation());
        VolumeIndex index = new VolumeIndex(slot.volumeId(), extents, set.journal(), set.space());
        DamageMapGeometry geometry = headerAndMap == null ? null
                : DamageMapGeometry.of(slot.dataOffsetBytes(), slot.volumeSizeBytes());
        DamageMapSource source = geometry == null ? null : DamageMapSource.onBacking(Arrays.copyOfRange(headerAndMap,
                BackingHeader.BYTES, BackingHeader.BYTES + geometry.areaBytes()));
        Volume volume = VolumeWiring.volume(set.loop(), set.cacheDevice(), set.space(), set.journal(), slot, index,
                wrapped, source, set.options(), mode, set.coveredWrites());
        long totalBytes = volume.sizeBytes();
        for (Volume other : set.volumes()) {
            totalBytes += other.sizeBytes();
        }
        // bcache weighs each backing device's dirty target by its share of the backing capacity; the volumes attached
        // before keep the share they had until the next open.
        Writeback writeback = new Writeback(set.loop(), volume, set.space(), set.journal(),
                (double) volume.sizeBytes() / totalBytes, WritebackSettings.defaults(), BackingLogs.region(slot));
        set.wired(wrapped, volume, writeback);
        if (volume.damageMap() == null) {
            writeback.start();
            set.loop().execute(() -> done.accept(Outcome.ok(volume)));
            return;
        }
        volume.damageMap().markDirty(marked -> {
            writeback.start();
            done.accept(marked.ok() ? Outcome.ok(volume) : Outcome.failed("volume \"" + spec.name()
                    + "\" is attached, but writing its damage map failed: " + marked.message()));
        });
    }

    /** Runs {@code next} if the step succeeded, else ends the attach with {@code what} and the error. */
    private static <T> IoCallback step(Consumer<Outcome<T>> done, String what, Runnable next) {
        return result -> {
            if (result.ok()) {
                next.run();
            } else {
                done.accept(Outcome.failed(what + " failed: " + result.message() + "; the volume is not attached"));
            }
        };
    }
}
