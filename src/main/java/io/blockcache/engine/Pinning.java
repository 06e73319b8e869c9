package io.blockcache.engine;

import io.blockcache.cache.BucketState;
import io.blockcache.cache.BucketTable;
import io.blockcache.device.BlockDevice;
import io.blockcache.loop.Checks;
import io.blockcache.volume.PinnedRanges;
import io.blockcache.volume.Volume;
import java.util.ArrayList;
import java.util.List;

/**
 * Pins and unpins byte ranges of a cache set's volumes (docs/CACHING.md "Pinning"), with the checks an operator's
 * command needs: the volume exists, the range lies in it and is sector-aligned, and all volumes' pinned bytes together
 * stay within {@link #CAP_PERCENT} % of the cache's data capacity. Every refusal is one line for the operator, naming
 * the numbers; nothing changes on a refusal.
 *
 * <p>Thread rule: the cache's loop thread.
 */
public final class Pinning {
    /**
     * Share of the data capacity that may be pinned in all. Half: the other half stays for everything else, so that
     * eviction still has victims and a pinned cache cannot turn into one that caches nothing new.
     */
    public static final int CAP_PERCENT = 50;

    private final CacheSet set;

    /** One pinned range of a volume, in bytes. */
    public record Range(String volume, long offsetBytes, long lengthBytes) {
    }

    /** Pins of {@code set}'s volumes. */
    public Pinning(CacheSet set) {
        this.set = set;
    }

    /** The cap on the bytes pinned over all volumes, {@link #CAP_PERCENT} % of the data buckets' bytes. */
    public long capBytes() {
        BucketTable table = set.space().table();
        long dataBytes = (long) (table.bucketCount() - table.count(BucketState.JOURNAL)) * table.bucketSectors()
                * BlockDevice.SECTOR_BYTES;
        return dataBytes * CAP_PERCENT / 100;
    }

    /** The pinned ranges of every volume, in volume and offset order (to save them, to list them). */
    public List<Range> ranges() {
        List<Range> out = new ArrayList<>();
        for (String name : set.exportNames()) {
            Volume volume = set.volume(name);
            if (volume != null) {
                for (long[] range : volume.index().pins().list()) {
                    out.add(new Range(name, range[0] * BlockDevice.SECTOR_BYTES, range[1] * BlockDevice.SECTOR_BYTES));
                }
            }
        }
        return out;
    }

    /** Bytes pinned over all volumes now. */
    public long pinnedBytes() {
        long sectors = 0;
        for (Volume volume : set.volumes()) {
            sectors += volume.index().pins().sectors();
        }
        return sectors * BlockDevice.SECTOR_BYTES;
    }

    /**
     * Pins {@code [offsetBytes, offsetBytes + lengthBytes)} of volume {@code name}.
     *
     * @return null if pinned, else the refusal
     */
    public String pin(String name, long offsetBytes, long lengthBytes) {
        Checks.onLoop(set.loop(), "Pinning.pin");
        PinnedRanges pins;
        try {
            pins = rangeOf(name, offsetBytes, lengthBytes);
        } catch (IllegalArgumentException refused) {
            return refused.getMessage();
        }
        long startSector = offsetBytes / BlockDevice.SECTOR_BYTES;
        long lengthSectors = lengthBytes / BlockDevice.SECTOR_BYTES;
        long newlyBytes = (lengthSectors - pins.pinnedSectorsIn(startSector, lengthSectors)) * BlockDevice.SECTOR_BYTES;
        long nowBytes = pinnedBytes();
        if (nowBytes + newlyBytes > capBytes()) {
            return "refused: pinning " + newlyBytes + " more bytes would pin " + (nowBytes + newlyBytes) + " bytes in"
                    + " all, over the cap of " + capBytes() + " bytes (" + CAP_PERCENT + " % of the cache's "
                    + capBytes() * 100 / CAP_PERCENT + " data bytes); " + nowBytes + " bytes are pinned now";
        }
        if (!pins.add(startSector, lengthSectors)) {
            return "volume \"" + name + "\" has " + PinnedRanges.RANGES_MAX + " pinned ranges already; unpin some or"
                    + " pin one range that covers them";
        }
        return null;
    }

    /**
     * Unpins {@code [offsetBytes, offsetBytes + lengthBytes)} of volume {@code name}; parts not pinned are ignored.
     *
     * @return null if done, else the refusal
     */
    public String unpin(String name, long offsetBytes, long lengthBytes) {
        Checks.onLoop(set.loop(), "Pinning.unpin");
        try {
            PinnedRanges pins = rangeOf(name, offsetBytes, lengthBytes);
            if (!pins.remove(offsetBytes / BlockDevice.SECTOR_BYTES, lengthBytes / BlockDevice.SECTOR_BYTES)) {
                return "unpinning that range would cut volume \"" + name + "\"'s pins into more than "
                        + PinnedRanges.RANGES_MAX + " ranges";
            }
            return null;
        } catch (IllegalArgumentException refused) {
            return refused.getMessage();
        }
    }

    /** The pins of volume {@code name}, after checking the range against it. */
    private PinnedRanges rangeOf(String name, long offsetBytes, long lengthBytes) {
        Volume volume = set.volume(name);
        if (volume == null) {
            throw new IllegalArgumentException("no volume named \"" + name + "\"; volumes: " + set.exportNames());
        }
        if (offsetBytes < 0 || lengthBytes <= 0 || offsetBytes % BlockDevice.SECTOR_BYTES != 0
                || lengthBytes % BlockDevice.SECTOR_BYTES != 0) {
            throw new IllegalArgumentException("range " + offsetBytes + "+" + lengthBytes + " must be a non-empty"
                    + " whole number of " + BlockDevice.SECTOR_BYTES + "-byte sectors");
        }
        if (offsetBytes + lengthBytes > volume.sizeBytes() || offsetBytes + lengthBytes < 0) {
            throw new IllegalArgumentException("range " + offsetBytes + "+" + lengthBytes + " ends past volume \""
                    + name + "\"'s " + volume.sizeBytes() + " bytes");
        }
        return volume.index().pins();
    }
}
