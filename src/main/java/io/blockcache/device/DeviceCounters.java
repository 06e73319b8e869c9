package io.blockcache.device;

import org.HdrHistogram.Histogram;

/**
 * Live counters of one device: requests and sectors submitted and completed per kind, errors, the
 * number of requests in flight (now, peak, and integrated over time for a mean queue depth), and a
 * latency histogram (all ops) and a {@link DurationHistogram} per op.
 *
 * <p>Thread rule: {@link #onSubmit} and {@link #onComplete} may be called from any thread (a file
 * device completes on its I/O threads); every reader may run on any thread. Times are in nanoseconds of
 * whatever {@link io.blockcache.loop.Clock} the device uses, so simulated devices report virtual time.
 *
 * <p>Why one lock and plain fields: every update happens on the I/O path (two to four per NBD request, almost
 * always on the loop thread), readers are rare (stats, the writeback governor). One uncontended monitor per update
 * costs a fraction of what atomic counters plus HdrHistogram's {@code Recorder} did (two atomic adds, a monitor, and
 * the recorder's phaser and atomic histogram: some six more atomic operations; 0.31 µs per paused 4 KiB write,
 * docs/bench-history/nbd.md "2026-12-04: a third set on the final code").
 */
public final class DeviceCounters {
    /** Highest latency the histogram tracks exactly: one hour, far above any sane device response. */
    private static final long LATENCY_NS_MAX = 3_600_000_000_000L;
    /** Three significant digits: 0.1 % resolution, the usual HdrHistogram trade-off of size for detail. */
    private static final int LATENCY_SIGNIFICANT_DIGITS = 3;

    private static final int OPS = DeviceOp.values().length;
    // Layout of the counter array: per op, [submitted, submittedSectors, completed, completedSectors, errors].
    private static final int SUBMITTED = 0;
    private static final int SUBMITTED_SECTORS = 1;
    private static final int COMPLETED = 2;
    private static final int COMPLETED_SECTORS = 3;
    private static final int ERRORS = 4;
    private static final int FIELDS = 5;

    // Everything below is guarded by 'this'.
    private final long[] counts = new long[OPS * FIELDS];
    private final Histogram latency = new Histogram(LATENCY_NS_MAX, LATENCY_SIGNIFICANT_DIGITS);
    /** Latency per op in fixed buckets, for Prometheus histograms (the HdrHistogram above mixes the ops). */
    private final DurationHistogram[] latencyByOp = newHistograms();
    private long inFlight;
    private long inFlightMax;
    private long inFlightIntegralNs;
    private long lastChangeNs;
    private boolean started;

    /** Records the submission of one request of {@code bytes} bytes (0 for a flush) at {@code nowNs}. */
    public synchronized void onSubmit(DeviceOp op, long bytes, long nowNs) {
        int base = op.ordinal() * FIELDS;
        counts[base + SUBMITTED]++;
        counts[base + SUBMITTED_SECTORS] += bytes / BlockDevice.SECTOR_BYTES;
        advance(nowNs);
        inFlight++;
        inFlightMax = Math.max(inFlightMax, inFlight);
    }

    /**
     * Records the completion of a request submitted with {@link #onSubmit}.
     *
     * @param latencyNs time from submission to completion in nanoseconds
     */
    public synchronized void onComplete(DeviceOp op, long bytes, long latencyNs, IoResult result, long nowNs) {
        int base = op.ordinal() * FIELDS;
        if (result.ok()) {
            counts[base + COMPLETED]++;
            counts[base + COMPLETED_SECTORS] += bytes / BlockDevice.SECTOR_BYTES;
        } else {
            counts[base + ERRORS]++;
        }
        latency.recordValue(Math.min(Math.max(latencyNs, 0), LATENCY_NS_MAX));
        latencyByOp[op.ordinal()].record(latencyNs);
        advance(nowNs);
        inFlight--;
    }

    private static DurationHistogram[] newHistograms() {
        DurationHistogram[] histograms = new DurationHistogram[OPS];
        for (int i = 0; i < OPS; i++) {
            histograms[i] = new DurationHistogram();
        }
        return histograms;
    }

    private void advance(long nowNs) {
        if (started) {
            inFlightIntegralNs += inFlight * Math.max(0, nowNs - lastChangeNs);
        }
        started = true;
        lastChangeNs = Math.max(lastChangeNs, nowNs);
    }

    /** Requests of {@code op} submitted so far. */
    public synchronized long submitted(DeviceOp op) {
        return counts[op.ordinal() * FIELDS + SUBMITTED];
    }

    /** Sectors of {@code op} submitted so far (512-byte units). */
    public synchronized long submittedSectors(DeviceOp op) {
        return counts[op.ordinal() * FIELDS + SUBMITTED_SECTORS];
    }

    /** Requests of {@code op} completed successfully so far. */
    public synchronized long completed(DeviceOp op) {
        return counts[op.ordinal() * FIELDS + COMPLETED];
    }

    /** Sectors of {@code op} completed successfully so far (512-byte units). */
    public synchronized long completedSectors(DeviceOp op) {
        return counts[op.ordinal() * FIELDS + COMPLETED_SECTORS];
    }

    /** Requests of {@code op} that completed with an error so far. */
    public synchronized long errors(DeviceOp op) {
        return counts[op.ordinal() * FIELDS + ERRORS];
    }

    /** Requests submitted and not yet completed. */
    public synchronized long inFlight() {
        return inFlight;
    }

    /** The highest number of requests ever in flight at once. */
    public synchronized long inFlightMax() {
        return inFlightMax;
    }

    /**
     * The integral of the in-flight count over time up to {@code nowNs}, in request·nanoseconds. The mean
     * queue depth over a window is the difference of two readings divided by the window length.
     */
    public synchronized long inFlightIntegralNs(long nowNs) {
        long pending = started ? inFlight * Math.max(0, nowNs - lastChangeNs) : 0;
        return inFlightIntegralNs + pending;
    }

    /**
     * The latency of every request of {@code op} completed since this device was created (with or without an error),
     * in fixed buckets. Any thread.
     */
    public synchronized DurationHistogram.Counts latencyBuckets(DeviceOp op) {
        return latencyByOp[op.ordinal()].counts();
    }

    /** Returns a copy of every latency recorded since this device was created, in nanoseconds. Any thread. */
    public synchronized Histogram latencyNs() {
        return latency.copy();
    }
}
