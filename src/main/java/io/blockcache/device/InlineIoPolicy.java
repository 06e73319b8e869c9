package io.blockcache.device;

/**
 * Decides, request by request, whether a {@link FileDevice} performs a small transfer on the loop thread itself
 * instead of handing it to an I/O thread.
 *
 * <p>Why: a 4 KiB {@code pread}/{@code pwrite} that the page cache serves takes 1–3 µs in the kernel, but the
 * hand-off to a parked I/O thread and back costs a futex wake-up and a context switch on each side. Measured on
 * the 2-core bench machine (docs/BENCHMARKS.md, "Small transfers on the loop thread"), the I/O threads spent about
 * 12 µs of system time per 4 KiB request, most of it waking and sleeping, against nbdkit's 9 µs for its whole
 * request. A transfer the kernel cannot serve from memory (a page to read from the disk, a write held back by
 * dirty-page throttling) would block the loop — every volume, timer and admin call behind it — for as long as the
 * disk takes, so the policy only inlines where the device has shown itself fast:
 * <ul>
 *   <li>only buffered devices (never O_DIRECT, where every call waits for the device), only reads and writes
 *       without FUA (a FUA write forces the file), and only transfers of at most {@link #INLINE_BYTES_MAX};</li>
 *   <li>only while the mean time of recent small channel calls, wherever they ran, is at most
 *       {@link #FAST_CALL_NS_MAX}. It starts at {@link #UNKNOWN_CALL_NS}, so a new device first proves itself on
 *       the I/O threads. The mean moves 1/16 of the way to each sample, so one call that went to a disk (0.1 ms
 *       on an SSD, 10 ms on a disk) sends the requests after it back to the I/O threads at once — for about 50
 *       calls after a 10 ms one, each measured there — while the loop thread losing its core for a moment
 *       (a sample of a few hundred microseconds) moves it only a little. A device that turns slow
 *       therefore blocks the loop for one to three calls, then is served by the I/O threads until it is fast
 *       again.</li>
 * </ul>
 *
 * <p>Thread rule: {@link #inline} and {@link #recordInline} on the loop thread; {@link #recordThreaded} from any
 * I/O thread (the mean is updated without a lock: a lost sample among thousands changes nothing).
 */
final class InlineIoPolicy {
    /** Largest transfer done on the loop: a few 4 KiB pages, whose copy costs about a microsecond each. */
    static final int INLINE_BYTES_MAX = 32 * 1024;
    /** Mean small-call time at or below which the device counts as served from memory. */
    static final long FAST_CALL_NS_MAX = 20_000;
    /** The mean a device starts with: unknown counts as slow until calls show otherwise. */
    static final long UNKNOWN_CALL_NS = 1_000_000;
    /** The mean moves 1/16 of the way to each sample: about the last 16–50 calls count. */
    private static final int MEAN_SHIFT = 4;

    private final boolean enabled;
    private volatile long meanCallNs = UNKNOWN_CALL_NS;
    /** Loop thread only; read by tests and counters through {@link #inlineCalls()}. */
    private volatile long inlineCalls;

    /** A policy for a device opened with or without O_DIRECT; with it, nothing is ever inlined. */
    InlineIoPolicy(boolean direct) {
        this.enabled = !direct;
    }

    /** Whether this request runs on the loop thread now. Loop thread only. */
    boolean inline(DeviceOp op, long lengthBytes, boolean fua) {
        if (!enabled || lengthBytes > INLINE_BYTES_MAX || !(op == DeviceOp.READ || (op == DeviceOp.WRITE && !fua))) {
            return false;
        }
        return meanCallNs <= FAST_CALL_NS_MAX;
    }

    /** Records the time of an inline call. Loop thread only. */
    void recordInline(long callNs) {
        inlineCalls++;
        record(callNs);
    }

    /** Records the time an I/O thread spent in the channel for a transfer that could have been inlined. */
    void recordThreaded(DeviceOp op, long lengthBytes, boolean fua, long callNs) {
        if (enabled && lengthBytes <= INLINE_BYTES_MAX && (op == DeviceOp.READ || (op == DeviceOp.WRITE && !fua))) {
            record(callNs);
        }
    }

    private void record(long callNs) {
        long mean = meanCallNs;
        meanCallNs = mean + ((callNs - mean) >> MEAN_SHIFT);
    }

    /** The current mean small-call time in nanoseconds; any thread. */
    long meanCallNs() {
        return meanCallNs;
    }

    /** Transfers performed on the loop thread so far; any thread. */
    long inlineCalls() {
        return inlineCalls;
    }
}
