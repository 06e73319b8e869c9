package io.blockcache.engine;

import io.blockcache.device.BlockDevice;
import io.blockcache.format.AttachedBacking;
import io.blockcache.format.BackingHeader;
import io.blockcache.format.DamageMapGeometry;
import io.blockcache.index.ExtentIndex;
import io.blockcache.volume.Volume;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Grows a volume of a running cache set (docs/FORMAT.md §3 "Volumes attached and detached live"). The caller has made
 * the backing device large enough; a device larger than its volume needs opens as it is (§4 attach checks). Then:
 * both superblock copies with the new size (the commit point), the backing header (and the map file's copy of it)
 * with the new size, and the volume takes requests up to it. An open that finds the superblock larger than the header
 * finishes the grow (it rewrites the header); one that finds them equal over a larger device sees the old size.
 *
 * <p>Thread rule: the cache set's loop thread; one volume change at a time ({@link CacheSet#growVolume}).
 */
final class VolumeGrower {
    private VolumeGrower() {
    }

    static void grow(CacheSet set, String name, long sizeBytes, Consumer<Outcome<Void>> done) {
        int slot = set.slotOf(name);
        String problem = slot < 0 ? "no volume named \"" + name + "\" (volumes: " + set.exportNames() + ")"
                : problem(set.superblock().backings().get(slot), set.backingSpecs().get(slot).device(), sizeBytes,
                        set.options().damageMap());
        if (problem != null) {
            set.loop().execute(() -> done.accept(Outcome.failed("resizing volume \"" + name + "\": " + problem)));
            return;
        }
        AttachedBacking old = set.superblock().backings().get(slot);
        AttachedBacking grown = old.withVolumeSizeBytes(sizeBytes);
        List<AttachedBacking> slots = new ArrayList<>(set.superblock().backings());
        slots.set(slot, grown);
        BackingSpec backing = set.backingSpecs().get(slot);
        Volume volume = set.volumes().get(slot);
        set.rewriteSlots(slots, written -> {
            if (!written.ok()) {
                done.accept(Outcome.failed("resizing volume \"" + name + "\": writing the superblock failed: "
                        + written.message() + "; the volume keeps its size"));
                return;
            }
            byte[] header = header(set, grown).encode();
            DeviceBytes.writeAndFlush(backing.device(), 0, header, headerWritten -> {
                if (!headerWritten.ok()) {
                    done.accept(Outcome.failed("resizing volume \"" + name + "\": the new size is recorded, but"
                            + " writing the backing header failed: " + headerWritten.message() + "; the next start"
                            + " finishes it"));
                    return;
                }
                volume.grow(sizeBytes);
                if (backing.mapDevice() == null || !set.options().damageMap()) {
                    done.accept(Outcome.ok(null));
                    return;
                }
                // The map file starts with a copy of the header; a stale copy would make the next open take the map
                // file as empty and write it again (safe, but it forgets nothing only because open re-marks).
                DeviceBytes.writeAndFlush(backing.mapDevice(), 0, header, mapWritten -> done.accept(mapWritten.ok()
                        ? Outcome.ok(null) : Outcome.failed("resizing volume \"" + name + "\": grown, but the damage"
                        + " map file's header could not be written: " + mapWritten.message())));
            });
        });
    }

    /** The backing header of {@code slot} in cache set {@code set}. */
    static BackingHeader header(CacheSet set, AttachedBacking slot) {
        return new BackingHeader(slot.backingUuid(), set.superblock().cacheSetUuid(), slot.dataOffsetBytes(),
                slot.volumeSizeBytes(), slot.dataOffsetBytes() - BackingHeader.LOG_OFFSET_BYTES);
    }

    private static String problem(AttachedBacking slot, BlockDevice device, long sizeBytes, boolean mapped) {
        if (slot.inPlace()) {
            return "it is cached in place: its size is its device's, checked at every open";
        }
        if (sizeBytes < slot.volumeSizeBytes()) {
            return "shrinking is not supported: the cache and the file system on the volume may hold data past "
                    + sizeBytes + " bytes (it has " + slot.volumeSizeBytes() + "); shrink the file system, remove the"
                    + " volume and add a smaller one instead";
        }
        if (sizeBytes == slot.volumeSizeBytes()) {
            return "it has " + sizeBytes + " bytes already";
        }
        if (sizeBytes % 4096 != 0) {
            return sizeBytes + " bytes is not a whole number of 4 KiB blocks";
        }
        if (sizeBytes / BlockDevice.SECTOR_BYTES > ExtentIndex.SECTOR_LIMIT) {
            return "a volume is at most 2^47 sectors";
        }
        long needed = slot.dataOffsetBytes() + sizeBytes;
        if (device.sizeBytes() < needed) {
            return "its backing store has " + device.sizeBytes() + " bytes and needs " + needed + " (the "
                    + slot.dataOffsetBytes() + "-byte header area and the volume); grow it first";
        }
        DamageMapGeometry before = DamageMapGeometry.of(slot.dataOffsetBytes(), slot.volumeSizeBytes());
        DamageMapGeometry after = DamageMapGeometry.of(slot.dataOffsetBytes(), sizeBytes);
        if (mapped && before != null && after != null && (before.regionBytes() != after.regionBytes()
                || before.blockCount() != after.blockCount())) {
            return "its damage map would change shape (" + before.blockCount() + " blocks of " + before.regionBytes()
                    + "-byte regions now, " + after.blockCount() + " of " + after.regionBytes() + " after), which a"
                    + " running cache does not do yet; grow by less (up to " + (before.regionBytes()
                    * before.blockCount() * io.blockcache.format.DamageMapBlock.REGIONS_PER_BLOCK) + " bytes keeps"
                    + " its shape), or serve with damage-map=off for the grow";
        }
        return null;
    }
}
