package io.blockcache.volume;

/**
 * What the front end tells, and asks, the volume's writeback engine (DESIGN.md §1, §5). The volume calls these
 * on the loop thread at submission time; the default does nothing and reports nothing in flight.
 *
 * <p>Why the volume must ask: a write that goes around the cache to the backing device while writeback of an
 * overlapping extent is in flight could be overtaken by the writeback's older data on the backing device —
 * data loss. Such writes are forced into the cache, or held until the writeback is done.
 */
public interface WritebackHooks {
    /** Hooks of a volume without writeback. */
    WritebackHooks NONE = new WritebackHooks() {
        @Override
        public boolean writebackInFlight(long startSector, long lengthSectors) {
            return false;
        }

        @Override
        public void whenWritebackClear(long startSector, long lengthSectors, Runnable task) {
            task.run();
        }

        @Override
        public void frontEndChanging(long startSector, long lengthSectors) {
        }

        @Override
        public void dirtyBucketUsed(int bucket, int generation) {
        }
    };

    /** True if writeback of an extent overlapping {@code [startSector, + lengthSectors)} is in flight. */
    boolean writebackInFlight(long startSector, long lengthSectors);

    /**
     * Runs {@code task} on the loop once no writeback overlapping the range is in flight: at once (inside this
     * call) if none is, else from a later loop event.
     */
    void whenWritebackClear(long startSector, long lengthSectors, Runnable task);

    /** A front-end write, trim or write-zeroes is about to change the range: buffered keys there are stale. */
    void frontEndChanging(long startSector, long lengthSectors);

    /** Dirty data is being appended into {@code bucket} under {@code generation} (dirty-age bookkeeping). */
    void dirtyBucketUsed(int bucket, int generation);
}
