package io.blockcache.gc;

import io.blockcache.cache.BucketTable;
import io.blockcache.index.ExtentLocation;
import io.blockcache.index.LookupVisitor;
import io.blockcache.volume.PinnedRanges;
import io.blockcache.volume.VolumeIndex;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;

/**
 * Which buckets hold pinned data (docs/CACHING.md "Pinning"), found by looking the volumes' pinned ranges up in their
 * indexes: eviction passes those buckets over, and GC moves the pinned extents out of the ones it would have evicted
 * ({@link #piecesIn}) so that the rest of such a bucket can go. Cost: one index lookup per pinned extent per call,
 * nothing when no volume has a pin.
 *
 * <p>Thread rule: the cache's loop thread.
 */
final class PinnedBuckets {
    /** Sectors looked up at once: a pinned range may be longer than an int of sectors. */
    private static final int LOOKUP_SECTORS_MAX = 1 << 30;

    private final BucketTable table;
    /** The GC's volume list: a piece's volume is its place here, as {@link MovingGc} reads it. */
    private final List<VolumeIndex> volumes;
    private final int[] pinnedSectors;
    private final BitSet held;

    PinnedBuckets(BucketTable table, List<VolumeIndex> volumes) {
        this.table = table;
        this.volumes = volumes;
        this.pinnedSectors = new int[table.bucketCount()];
        this.held = new BitSet(table.bucketCount());
    }

    /** Recounts; the buckets holding live pinned data now, or null if no volume has a pin (view, valid until next). */
    BitSet scan() {
        held.clear();
        Arrays.fill(pinnedSectors, 0);
        boolean any = false;
        for (int v = 0; v < volumes.size(); v++) {
            any |= !volumes.get(v).pins().isEmpty();
            walk(v, (start, length, location, crc, crcOffset, crcLength) -> {
                int bucket = ExtentLocation.bucket(location);
                pinnedSectors[bucket] += length;
                held.set(bucket);
            });
        }
        return any ? held : null;
    }

    /**
     * Whether moving the pinned data out of {@code bucket} (so the rest can be evicted) gains space: it holds at most
     * half a bucket of pinned sectors, so the copy takes at most half a bucket of the GC write point and frees one.
     * A bucket fuller of pinned data simply stays. As of the last {@link #scan}.
     */
    boolean worthMoving(int bucket) {
        return pinnedSectors[bucket] * 2L <= table.bucketSectors();
    }

    /** The pinned extents, as the index holds them now, that live in {@code buckets}, in volume and sector order. */
    List<MovePiece> piecesIn(BitSet buckets) {
        List<MovePiece> pieces = new ArrayList<>();
        for (int v = 0; v < volumes.size(); v++) {
            int volume = v;
            walk(v, (start, length, location, crc, crcOffset, crcLength) -> {
                if (buckets.get(ExtentLocation.bucket(location))) {
                    pieces.add(new MovePiece(volume, start, length, location, crc, crcOffset, crcLength));
                }
            });
        }
        return pieces;
    }

    /** What a pinned live extent is handed. */
    private interface PinnedExtent {
        void found(long startSector, int lengthSectors, long location, int crc32c, int crcOffsetInBucketSectors,
                   int crcLengthSectors);
    }

    /** Hands every live extent of volume {@code v}'s pinned ranges to {@code sink}. */
    private void walk(int v, PinnedExtent sink) {
        VolumeIndex index = volumes.get(v);
        PinnedRanges pins = index.pins();
        if (pins.isEmpty()) {
            return;
        }
        LookupVisitor visitor = new LookupVisitor() {
            @Override
            public void hole(long startSector, int lengthSectors) {
            }

            @Override
            public void extent(long startSector, int lengthSectors, long location, int crc32c,
                               int crcOffsetInBucketSectors, int crcLengthSectors) {
                int bucket = ExtentLocation.bucket(location);
                if (table.generation(bucket) == ExtentLocation.generation(location)) {
                    sink.found(startSector, lengthSectors, location, crc32c, crcOffsetInBucketSectors,
                            crcLengthSectors);
                }
            }
        };
        for (long[] range : pins.list()) {
            for (long at = range[0]; at < range[0] + range[1]; at += LOOKUP_SECTORS_MAX) {
                index.lookup(at, (int) Math.min(LOOKUP_SECTORS_MAX, range[0] + range[1] - at), visitor);
            }
        }
    }
}
