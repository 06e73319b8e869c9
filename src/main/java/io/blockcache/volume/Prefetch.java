package io.blockcache.volume;

/**
 * One explicit prefetch of a volume range ({@link Volume#prefetch}): what was asked, how far it got, and how it
 * ended. The loop thread writes it; any thread may read it (each field is volatile and has one writer).
 *
 * <p>Bytes: {@link #doneBytes()} of {@link #lengthBytes()} have been walked; each walked byte was already cached
 * ({@link #cachedBytes()}), filled now ({@link #filledBytes()}), or taken over by a newer write that raced the fill
 * ({@link #racedBytes()}: the newer data is what the volume holds, and it was not overwritten).
 */
public final class Prefetch {
    /** Where a prefetch is. */
    public enum State {
        /** Walking the range. */
        RUNNING,
        /** Every byte of the range was walked. */
        DONE,
        /**
         * Stopped: the cache had no clean room for {@link RangePrefetch#ROOM_WAIT_NS_MAX} of loop time (full of
         * dirty data that only writeback can free; dirty data is never evicted for a prefetch).
         */
        NO_ROOM,
        /** Stopped by {@link #cancel()}. */
        CANCELLED,
        /** Stopped by an error (a backing read or cache write failed, the volume closed, the cache is off). */
        FAILED;

        /** True once the prefetch has ended, whatever the reason. */
        public boolean ended() {
            return this != RUNNING;
        }
    }

    private final long offsetBytes;
    private final long lengthBytes;
    private final long rateMaxBytesPerSecond;
    private volatile long doneBytes;
    private volatile long filledBytes;
    private volatile long cachedBytes;
    private volatile long racedBytes;
    private volatile State state = State.RUNNING;
    private volatile String message = "";
    private volatile boolean cancelWanted;
    /** Wakes the loop-side walk out of a wait (rate cap, room) to see the cancel; set by {@link RangePrefetch}. */
    private Runnable wake = () -> { };

    Prefetch(long offsetBytes, long lengthBytes, long rateMaxBytesPerSecond) {
        this.offsetBytes = offsetBytes;
        this.lengthBytes = lengthBytes;
        this.rateMaxBytesPerSecond = rateMaxBytesPerSecond;
    }

    /** First byte of the range. */
    public long offsetBytes() {
        return offsetBytes;
    }

    /** Bytes asked for. */
    public long lengthBytes() {
        return lengthBytes;
    }

    /** The cap on bytes read from the backing device per second; 0 for none. */
    public long rateMaxBytesPerSecond() {
        return rateMaxBytesPerSecond;
    }

    /** Bytes of the range walked so far (cached, filled or raced). */
    public long doneBytes() {
        return doneBytes;
    }

    /** Bytes read from the backing device and written into the cache as clean data. */
    public long filledBytes() {
        return filledBytes;
    }

    /** Bytes that were in the cache already when the prefetch looked. */
    public long cachedBytes() {
        return cachedBytes;
    }

    /** Bytes not filled because a newer write raced the fill (that write's data stays). */
    public long racedBytes() {
        return racedBytes;
    }

    /** Where the prefetch is now. */
    public State state() {
        return state;
    }

    /** Why it stopped, for an operator; empty while running or when done. */
    public String message() {
        return message;
    }

    /**
     * Stops the prefetch after the piece it is filling (what is filled stays cached); at once if it is waiting for its
     * turn under the rate cap or for room. Thread rule: the loop thread.
     */
    public void cancel() {
        cancelWanted = true;
        wake.run();
    }

    void onCancel(Runnable action) {
        wake = action;
    }

    boolean cancelWanted() {
        return cancelWanted;
    }

    void walked(long bytes, Outcome outcome) {
        switch (outcome) {
            case CACHED -> cachedBytes += bytes;
            case FILLED -> filledBytes += bytes;
            case RACED -> racedBytes += bytes;
            default -> throw new IllegalArgumentException("outcome " + outcome);
        }
        doneBytes += bytes;
    }

    void end(State end, String why) {
        message = why;
        state = end;
    }

    /** What became of walked bytes. */
    enum Outcome {
        CACHED, FILLED, RACED
    }
}
