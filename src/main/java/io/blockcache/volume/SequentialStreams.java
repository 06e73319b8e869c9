package io.blockcache.volume;

/**
 * Detects sequential streams the way bcache does (request.c, check_should_bypass): a small table of recent
 * streams, each known by the sector where it ends; a request that starts exactly where a live stream ends
 * continues it, any other request starts a new stream in the least recently used slot. The run of a stream is
 * the bytes it has covered since it started.
 *
 * <p>Bounds: {@link #STREAMS_MAX} slots, a linear scan of them per request (no allocation). A stream not
 * continued for {@link #STREAM_EXPIRY_NS} is forgotten (bcache: 5 s), so an old run cannot make a new
 * request that happens to start at its end look sequential.
 *
 * <p>Thread rule: the loop thread.
 */
final class SequentialStreams {
    /** bcache: RECENT_IO (64 recent streams per backing device). */
    static final int STREAMS_MAX = 64;
    /** bcache: a stream entry lives 5000 ms after its last request. */
    static final long STREAM_EXPIRY_NS = 5_000_000_000L;

    private final long[] endSector = new long[STREAMS_MAX];
    private final long[] runBytes = new long[STREAMS_MAX];
    private final long[] lastUseNs = new long[STREAMS_MAX];
    private final boolean[] live = new boolean[STREAMS_MAX];
    private long streamsStarted;

    /**
     * Records a request of {@code lengthBytes} starting at {@code startSector} at {@code nowNs} and returns the
     * run, in bytes, of the stream it belongs to (its own length if it starts a new stream).
     */
    long record(long startSector, long lengthBytes, long nowNs) {
        int slot = find(startSector, nowNs);
        if (slot < 0) {
            slot = leastRecentlyUsed();
            runBytes[slot] = 0;
            live[slot] = true;
            streamsStarted++;
        }
        runBytes[slot] = Math.addExact(runBytes[slot], lengthBytes);
        endSector[slot] = startSector + lengthBytes / io.blockcache.device.BlockDevice.SECTOR_BYTES;
        lastUseNs[slot] = nowNs;
        return runBytes[slot];
    }

    /** Streams started since creation (each non-contiguous or expired request starts one). */
    long streamsStarted() {
        return streamsStarted;
    }

    private int find(long startSector, long nowNs) {
        for (int i = 0; i < STREAMS_MAX; i++) {
            if (live[i] && endSector[i] == startSector && nowNs - lastUseNs[i] < STREAM_EXPIRY_NS) {
                return i;
            }
        }
        return -1;
    }

    private int leastRecentlyUsed() {
        int oldest = 0;
        for (int i = 0; i < STREAMS_MAX; i++) {
            if (!live[i]) {
                return i;
            }
            if (lastUseNs[i] < lastUseNs[oldest]) {
                oldest = i; // ties keep the lowest slot: deterministic
            }
        }
        return oldest;
    }
}
