package io.blockcache.writeback;

import io.blockcache.device.BlockDevice;
import io.blockcache.index.ExtentLocation;
import io.blockcache.index.LookupVisitor;
import io.blockcache.volume.Volume;
import java.util.ArrayList;
import java.util.List;

/**
 * Plans the writeback of one chunk of a backing device whose write unit is larger than its logical block (an object
 * store, where a write covering part of a chunk costs the store a GET of the old chunk; docs/WRITEBACK.md "Object
 * stores"). Given one dirty key, it looks up the whole chunk around it in the index and takes every dirty piece
 * there that writeback may take now. If those pieces and the clean cached pieces between them cover the whole
 * chunk, the plan is one write of the whole chunk, its gaps <em>filled</em> from the cache (a clean copy equals what
 * the backing device holds: docs/ARCHITECTURE.md §5 item 6, so writing it again changes nothing); otherwise only the
 * dirty pieces are written and the store fills the rest itself.
 *
 * <p>A gap is not filled where a front-end write is in flight (its data may be on the way to the backing device),
 * nor with dirty data writeback may not take now (in flight, or of a younger epoch under epoch ordering: writing
 * it would let that epoch overtake an older one).
 *
 * <p>Thread rule: the loop thread.
 */
final class ChunkPlanner implements LookupVisitor {
    /** A clean cached piece read only to fill a chunk's gap; it stays clean and is not a key. */
    record Fill(long startSector, int lengthSectors, long location, int crc32c, int crcOffsetInBucketSectors,
                int crcLengthSectors) {
    }

    /**
     * One chunk's writeback: its volume range, the dirty keys taken, and (if {@code whole}) the clean fills that
     * complete it.
     */
    record Plan(long startSector, int lengthSectors, List<DirtyKey> keys, List<Fill> fills, boolean whole) {
        long keySectors() {
            long sectors = 0;
            for (DirtyKey key : keys) {
                sectors += key.lengthSectors();
            }
            return sectors;
        }
    }

    private final Volume volume;
    private final InFlightKeys inFlight;
    private final DirtyAges ages;
    private DirtyScanner.RangeFilter eligible;
    private List<DirtyKey> keys;
    private List<Fill> fills;
    private long coveredSectors;

    ChunkPlanner(Volume volume, InFlightKeys inFlight, DirtyAges ages) {
        this.volume = volume;
        this.inFlight = inFlight;
        this.ages = ages;
    }

    /**
     * Plans the chunk of {@code unitBytes} (on the backing device) that holds {@code seed}'s first sector; null if no
     * dirty piece of it may be taken now.
     */
    Plan plan(DirtyKey seed, int unitBytes, DirtyScanner.RangeFilter takeable) {
        long unitSectors = unitBytes / BlockDevice.SECTOR_BYTES;
        long intoChunkSectors = volume.backingOffsetBytes(seed.startSector()) % unitBytes / BlockDevice.SECTOR_BYTES;
        long chunkStart = seed.startSector() - intoChunkSectors;
        long volumeSectors = volume.sizeBytes() / BlockDevice.SECTOR_BYTES;
        long start = Math.max(0, chunkStart);
        long end = Math.min(volumeSectors, chunkStart + unitSectors);
        eligible = takeable;
        keys = new ArrayList<>();
        fills = new ArrayList<>();
        coveredSectors = 0;
        volume.index().lookup(start, (int) (end - start), this);
        if (keys.isEmpty()) {
            return null;
        }
        boolean whole = chunkStart >= 0 && end - start == unitSectors && coveredSectors == unitSectors;
        return new Plan(start, (int) (end - start), keys, whole ? fills : List.of(), whole);
    }

    @Override
    public void hole(long startSector, int lengthSectors) {
        // Not cached: the store keeps (or fetches) what it has there.
    }

    @Override
    public void extent(long startSector, int lengthSectors, long location, int crc32c, int crcOffsetInBucketSectors,
                       int crcLengthSectors) {
        if (volume.frontEndWriteInFlight(startSector, lengthSectors)) {
            return;
        }
        if (!ExtentLocation.dirty(location)) {
            fills.add(new Fill(startSector, lengthSectors, location, crc32c, crcOffsetInBucketSectors,
                    crcLengthSectors));
            coveredSectors += lengthSectors;
            return;
        }
        if (inFlight.overlaps(startSector, lengthSectors) || !eligible.test(startSector, lengthSectors)) {
            return;
        }
        keys.add(new DirtyKey(startSector, lengthSectors, location, crc32c, crcOffsetInBucketSectors,
                crcLengthSectors, ages.agedSinceNs(ExtentLocation.bucket(location))));
        coveredSectors += lengthSectors;
    }
}
