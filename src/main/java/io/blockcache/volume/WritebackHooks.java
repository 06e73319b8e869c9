package io.blockcache.volume;

/**
 * What the front end tells, and asks, the volume's writeback engine (docs/WRITEBACK.md, "The front-end side"). The
 * volume calls these on the loop thread at submission time; the default does nothing and reports nothing in flight.
 *
 * <p>Why the volume must ask: a write that goes around the cache to the backing device while writeback of an
 * overlapping extent is in flight could be overtaken by the writeback's older data on the backing device —
 * data loss. Such writes are forced into the cache; with no room they reach the backing device through the
 * volume's backing write gate, after the writeback write, in submission order.
 */
public interface WritebackHooks {
    /** Hooks of a volume without writeback. */
    WritebackHooks NONE = new WritebackHooks() {
        @Override
        public boolean writebackInFlight(long startSector, long lengthSectors) {
            return false;
        }

        @Override
        public void frontEndChanging(long startSector, long lengthSectors) {
        }

        @Override
        public void dirtyBucketUsed(int bucket, int generation) {
        }

        @Override
        public void orderHoldSettled(String failure) {
        }
    };

    /** True if writeback of an extent overlapping {@code [startSector, + lengthSectors)} is in flight. */
    boolean writebackInFlight(long startSector, long lengthSectors);


    /** A front-end write, trim or write-zeroes is about to change the range: buffered keys there are stale. */
    void frontEndChanging(long startSector, long lengthSectors);

    /** Dirty data is being appended into {@code bucket} under {@code generation} (dirty-age bookkeeping). */
    void dirtyBucketUsed(int bucket, int generation);

    /**
     * A durable step the volume held its order for ({@code Volume.orderHeld}: the journal record voiding its recorded
     * epochs, the damage map's cleared consistency flag) is done ({@code failure} null: writeback, held since, may
     * run) or failed (writeback stays held; the reason, for its error).
     */
    void orderHoldSettled(String failure);
}
