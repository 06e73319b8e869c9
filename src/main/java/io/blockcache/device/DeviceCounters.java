package io.blockcache.device;

import java.util.concurrent.atomic.AtomicLongArray;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Live counters of one device: requests and sectors submitted and completed per kind, errors, the
 * number of requests in flight (now, peak, and integrated over time for a mean queue depth), and a
 * latency histogram.
 *
 * <p>Thread rule: {@link #onSubmit} and {@link #onComplete} may be called from any thread (a file
 * device completes on its I/O threads); every reader may run on any thread. Times are in nanoseconds of
 * whatever {@link io.blockcache.loop.Clock} the device uses, so simulated devices report virtual time.
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

    private final AtomicLongArray counts = new AtomicLongArray(OPS * FIELDS);
    private final Recorder latencyRecorder = new Recorder(LATENCY_NS_MAX, LATENCY_SIGNIFICANT_DIGITS);
    private final Histogram latencyTotal = new Histogram(LATENCY_NS_MAX, LATENCY_SIGNIFICANT_DIGITS);

    // Queue-depth bookkeeping is guarded by 'this': three fields that must change together.
    private long inFlight;
    private long inFlightMax;
    private long inFlightIntegralNs;
    private long lastChangeNs;
    private boolean started;

    /** Records the submission of one request of {@code bytes} bytes (0 for a flush) at {@code nowNs}. */
    public void onSubmit(DeviceOp op, long bytes, long nowNs) {
        int base = op.ordinal() * FIELDS;
        counts.incrementAndGet(base + SUBMITTED);
        counts.addAndGet(base + SUBMITTED_SECTORS, bytes / BlockDevice.SECTOR_BYTES);
        synchronized (this) {
            advance(nowNs);
            inFlight++;
            inFlightMax = Math.max(inFlightMax, inFlight);
        }
    }

    /**
     * Records the completion of a request submitted with {@link #onSubmit}.
     *
     * @param latencyNs time from submission to completion in nanoseconds
     */
    public void onComplete(DeviceOp op, long bytes, long latencyNs, IoResult result, long nowNs) {
        int base = op.ordinal() * FIELDS;
        if (result.ok()) {
            counts.incrementAndGet(base + COMPLETED);
            counts.addAndGet(base + COMPLETED_SECTORS, bytes / BlockDevice.SECTOR_BYTES);
        } else {
            counts.incrementAndGet(base + ERRORS);
        }
        latencyRecorder.recordValue(Math.min(Math.max(latencyNs, 0), LATENCY_NS_MAX));
        synchronized (this) {
            advance(nowNs);
            inFlight--;
        }
    }

    private void advance(long nowNs) {
        if (started) {
            inFlightIntegralNs += inFlight * Math.max(0, nowNs - lastChangeNs);
        }
        started = true;
        lastChangeNs = Math.max(lastChangeNs, nowNs);
    }

    /** Requests of {@code op} submitted so far. */
    public long submitted(DeviceOp op) {
        return counts.get(op.ordinal() * FIELDS + SUBMITTED);
    }

    /** Sectors of {@code op} submitted so far (512-byte units). */
    public long submittedSectors(DeviceOp op) {
        return counts.get(op.ordinal() * FIELDS + SUBMITTED_SECTORS);
    }

    /** Requests of {@code op} completed successfully so far. */
    public long completed(DeviceOp op) {
        return counts.get(op.ordinal() * FIELDS + COMPLETED);
    }

    /** Sectors of {@code op} completed successfully so far (512-byte units). */
    public long completedSectors(DeviceOp op) {
        return counts.get(op.ordinal() * FIELDS + COMPLETED_SECTORS);
    }

    /** Requests of {@code op} that completed with an error so far. */
    public long errors(DeviceOp op) {
        return counts.get(op.ordinal() * FIELDS + ERRORS);
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
     * Returns a copy of every latency recorded since this device was created, in nanoseconds.
     * Thread rule: any thread, but one caller at a time (the histogram accumulates interval snapshots).
     */
    public synchronized Histogram latencyNs() {
        latencyTotal.add(latencyRecorder.getIntervalHistogram());
        return latencyTotal.copy();
    }
}
