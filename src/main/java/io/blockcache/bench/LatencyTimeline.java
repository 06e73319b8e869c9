package io.blockcache.bench;

/**
 * The largest latency seen per fixed window of loop time (the plot of bcache's GC-latency patch: latency against time),
 * for a bounded number of windows after a start time; completions outside them are ignored.
 *
 * <p>Thread rule: recorded on the loop's thread, read after the experiment has stopped recording.
 */
final class LatencyTimeline {
    /** Most windows kept (bounds the memory of a long run). */
    static final int WINDOWS_MAX = 100_000;

    private final long startNs;
    private final long windowNs;
    private final long[] latencyNsMax;
    private int used;

    /** Windows of {@code windowNs} from {@code startNs} on, at most {@code windows}. */
    LatencyTimeline(long startNs, long windowNs, int windows) {
        if (windowNs <= 0 || windows < 1 || windows > WINDOWS_MAX) {
            throw new IllegalArgumentException("windowNs > 0 and windows in [1, " + WINDOWS_MAX + "]: " + windowNs
                    + ", " + windows);
        }
        this.startNs = startNs;
        this.windowNs = windowNs;
        this.latencyNsMax = new long[windows];
    }

    /** Records a completion at {@code nowNs} that took {@code latencyNs}. */
    void record(long nowNs, long latencyNs) {
        long window = (nowNs - startNs) / windowNs;
        if (window < 0 || window >= latencyNsMax.length) {
            return;
        }
        latencyNsMax[(int) window] = Math.max(latencyNsMax[(int) window], latencyNs);
        used = Math.max(used, (int) window + 1);
    }

    /** Windows up to the last one that saw a completion. */
    int windows() {
        return used;
    }

    /** The window length, ns. */
    long windowNs() {
        return windowNs;
    }

    /** The largest latency in window {@code window}, ns (0 if none completed in it). */
    long latencyNsMax(int window) {
        return latencyNsMax[window];
    }
}
