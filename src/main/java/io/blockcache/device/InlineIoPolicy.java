package io.blockcache.device;

/**
 * Decides, request by request, whether a {@link FileDevice} performs a small transfer on the loop thread itself
 * instead of handing it to an I/O thread.
 *
 * <p>Why: a 4 KiB {@code pread}/{@code pwrite} that the page cache serves takes 1–3 µs in the kernel, but the
 * hand-off to a parked I/O thread and back costs a futex wake-up and a context switch on each side. Measured on
 * the 2-core bench machine (docs/bench-history/nbd.md, "2026-12-02, quiet machine: small transfers on the loop
 * thread"), the I/O threads spent about 12 µs of system time per 4 KiB request, most of it waking and sleeping, against
 * nbdkit's 9 µs for its whole request. A transfer the kernel cannot serve from memory (a page to read from the disk, a
 * write held back by dirty-page throttling) would block the loop — every volume, timer and admin call behind it — for
 * as long as the disk takes, so the policy only inlines where the device has shown itself fast:
 * <ul>
 *   <li>only buffered devices (never O_DIRECT, where every call waits for the device), only reads and writes
 *       without FUA (a FUA write forces the file), and only transfers of at most {@link #INLINE_BYTES_MAX};</li>
 *   <li>only while the mean time of recent small channel calls is at most {@link #FAST_CALL_NS_MAX}. It starts at
 *       {@link #UNKNOWN_CALL_NS}, so a new device first proves itself on the I/O threads. The mean moves 1/16 of
 *       the way to each sample, so one call that went to a disk (0.1 ms on an SSD, 10 ms on a disk) sends the
 *       requests after it back to the I/O threads at once, while the loop thread losing its core for a moment
 *       (a sample of a few hundred microseconds) moves it only a little. A device that turns slow therefore blocks
 *       the loop for one to three calls, then is served by the I/O threads.</li>
 *   <li>While requests go to the I/O threads, one of them runs on the loop as a <em>probe</em> every
 *       {@link #PROBE_INTERVAL_MIN_NS} or more; a probe as fast as {@link #FAST_CALL_NS_MAX} starts inlining
 *       again at once. Why: the I/O threads' own times cannot show that the page cache is fast again. A
 *       buffered write takes the file's inode lock, so 32 writes handed to 32 threads at once queue behind each
 *       other and each one measures the queue: measured on the bench machine, 4 KiB writes at queue depth 32
 *       stayed on the threads for a whole run after one slow moment, though each took a few microseconds alone
 *       (docs/bench-history/nbd.md "2026-12-02: small writes stuck on the I/O threads"). So threaded times only ever
 *       bring inlining <em>on</em>; while inlining, the late threaded calls (handed off before it began) are not
 *       counted. A slow probe, or an inline spell that a probe began and that ends within {@link #PROBE_TRUSTED_CALLS}
 *       calls, doubles the interval up to {@link #PROBE_INTERVAL_MAX_NS}: a device that really is slow blocks the loop
 *       for one call per 10 s.</li>
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
    /** The shortest time between two probes, and the first probe's delay after a device is first used. */
    static final long PROBE_INTERVAL_MIN_NS = 100_000_000L;
    /** The longest time between two probes: the most a slow device pays is one blocked call this often. */
    static final long PROBE_INTERVAL_MAX_NS = 10_000_000_000L;
    /** An inline spell a probe began counts as a good one (the interval goes back to its minimum) after this many. */
    static final long PROBE_TRUSTED_CALLS = 1_000;
    /** The mean moves 1/16 of the way to each sample: about the last 16–50 calls count. */
    private static final int MEAN_SHIFT = 4;
    private static final long NOT_SCHEDULED = Long.MIN_VALUE;

    private final boolean enabled;
    private volatile long meanCallNs = UNKNOWN_CALL_NS;
    /** Loop thread only; read by tests and counters through {@link #inlineCalls()}. */
    private volatile long inlineCalls;
    // Loop thread only: the probe schedule, whether the inline call in progress is a probe, and the inline count at
    // which a probe began the current spell (-1: the spell did not begin with a probe, or there is none).
    private long nextProbeNs = NOT_SCHEDULED;
    private long probeIntervalNs = PROBE_INTERVAL_MIN_NS;
    private boolean probing;
    private long spellStartCalls = -1;
    private volatile long probes;

    /** A policy for a device opened with or without O_DIRECT; with it, nothing is ever inlined. */
    InlineIoPolicy(boolean direct) {
        this.enabled = !direct;
    }

    /**
     * Whether this request runs on the loop thread now (it may be a probe). Loop thread only; {@code nowNs} is the
     * loop's clock. A {@code true} answer must be followed by {@link #recordInline} for the same request.
     */
    boolean inline(DeviceOp op, long lengthBytes, boolean fua, long nowNs) {
        if (!eligible(op, lengthBytes, fua)) {
            return false;
        }
        if (meanCallNs <= FAST_CALL_NS_MAX) {
            return true;
        }
        if (nextProbeNs == NOT_SCHEDULED) {
            nextProbeNs = nowNs + probeIntervalNs;
            return false;
        }
        if (nowNs < nextProbeNs) {
            return false;
        }
        nextProbeNs = nowNs + probeIntervalNs;
        probing = true;
        probes++;
        return true;
    }

    /** Records one inline transfer (a probe or not) of {@code callNs} at loop time {@code nowNs}. Loop thread only. */
    void recordInline(long callNs, long nowNs) {
        recordInline(callNs, nowNs, 1);
    }

    /**
     * Records an inline channel call (a probe or not) at loop time {@code nowNs} that performed {@code transfers}
     * transfers (more than one for a {@link WritePlug} of adjacent writes) in {@code callNs} each on average. Loop
     * thread only.
     */
    void recordInline(long callNs, long nowNs, int transfers) {
        inlineCalls += transfers;
        if (probing) {
            probing = false;
            if (callNs <= FAST_CALL_NS_MAX) {
                meanCallNs = callNs; // a lone call is what the loop would pay; the threads' queue said nothing
                spellStartCalls = inlineCalls;
            } else {
                record(callNs);
                probeIntervalNs = Math.min(2 * probeIntervalNs, PROBE_INTERVAL_MAX_NS);
            }
            return;
        }
        record(callNs);
        if (meanCallNs > FAST_CALL_NS_MAX) { // this call ended the spell
            boolean shortProbedSpell = spellStartCalls >= 0 && inlineCalls - spellStartCalls < PROBE_TRUSTED_CALLS;
            probeIntervalNs = shortProbedSpell ? Math.min(2 * probeIntervalNs, PROBE_INTERVAL_MAX_NS)
                    : PROBE_INTERVAL_MIN_NS;
            spellStartCalls = -1;
            nextProbeNs = nowNs + probeIntervalNs;
        }
    }

    /**
     * Records the time an I/O thread spent in the channel for a transfer that could have been inlined. Counted only
     * while requests go to the threads: it can bring inlining on, never off (see the class comment).
     */
    void recordThreaded(DeviceOp op, long lengthBytes, boolean fua, long callNs) {
        if (eligible(op, lengthBytes, fua) && meanCallNs > FAST_CALL_NS_MAX) {
            record(callNs);
        }
    }

    private boolean eligible(DeviceOp op, long lengthBytes, boolean fua) {
        return enabled && lengthBytes <= INLINE_BYTES_MAX && (op == DeviceOp.READ || (op == DeviceOp.WRITE && !fua));
    }

    private void record(long callNs) {
        long mean = meanCallNs;
        meanCallNs = mean + ((callNs - mean) >> MEAN_SHIFT);
    }

    /** The current mean small-call time in nanoseconds; any thread. */
    long meanCallNs() {
        return meanCallNs;
    }

    /** Transfers performed on the loop thread so far, probes included; any thread. */
    long inlineCalls() {
        return inlineCalls;
    }

    /** Probes made so far; any thread. */
    long probes() {
        return probes;
    }

    /** The time from one probe to the next now, nanoseconds; loop thread (tests). */
    long probeIntervalNs() {
        return probeIntervalNs;
    }
}
