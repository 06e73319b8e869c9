package io.blockcache.bench;

/**
 * How often the front end of a writeback experiment sends FLUSH (each one closes an epoch under
 * {@code ordering=epochs}, docs/WRITEBACK.md): every {@code intervalNs} of its time, or after every write.
 *
 * @param label the row's name for it ("1s", "100ms", "write", "never")
 * @param intervalNs a FLUSH every this long (0: not by time)
 * @param afterEveryWrite a FLUSH as each write completes
 */
record FlushCadence(String label, long intervalNs, boolean afterEveryWrite) {
    static final FlushCadence NEVER = new FlushCadence("never", 0, false);
    static final FlushCadence EVERY_SECOND = new FlushCadence("1s", 1_000_000_000L, false);
    static final FlushCadence EVERY_100_MS = new FlushCadence("100ms", 100_000_000L, false);
    static final FlushCadence EVERY_WRITE = new FlushCadence("write", 0, true);

    /**
     * For a pre-written dirty set: the writes between two FLUSHes of an application writing one extent every
     * {@code writeIntervalNs} (at least 1).
     */
    int writesPerFlush(long writeIntervalNs) {
        if (afterEveryWrite) {
            return 1;
        }
        return intervalNs == 0 ? 0 : (int) Math.max(1, intervalNs / writeIntervalNs);
    }
}
