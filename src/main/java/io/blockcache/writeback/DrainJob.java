package io.blockcache.writeback;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * One drain job of one volume (docs/WRITEBACK.md, "Drain jobs"): its state, its limits, whom to tell, and the
 * arithmetic of its rate — the cap, the rate a deadline needs, the measured rate and the ETA. {@link Writeback} owns
 * the job and asks it how fast passes may go; the job does no I/O.
 *
 * <p>Rate while running: the cap alone; or, with a deadline, dirty bytes / time left × {@link #DEADLINE_MARGIN}
 * (re-evaluated at every pass, so a drain that falls behind speeds up), never above the cap; full speed once the
 * deadline has passed or without either limit.
 *
 * <p>Thread rule: the loop thread. Admin code reads the accessors there too.
 */
public final class DrainJob {
    /**
     * A deadline drain aims this much faster than strictly needed: clean batches wait for their flush (up to 1 s),
     * the measured rate lags, and the last keys of a pass overshoot; 20 % absorbs those and still leaves the backing
     * device most of its time.
     */
    static final double DEADLINE_MARGIN = 1.2;
    /** Slowest paced rate a deadline sets: bcache's writeback_rate_minimum, so a small tail never crawls. */
    static final long DEADLINE_RATE_MIN_SECTORS_PER_SECOND = 8;

    private final DrainLimits limits;
    private final Consumer<DrainProgress> listener;
    private final List<IoCallback> waiters = new ArrayList<>();
    private final long cleanedAtStartSectors;
    private DrainState state = DrainState.RUNNING;
    private boolean ending;
    private long runningSinceNs;
    private long runningNsBefore;
    private String error;
    private DrainProgress last;

    DrainJob(DrainLimits limits, Consumer<DrainProgress> listener, IoCallback done, long cleanedAtStartSectors,
             long nowNs) {
        this.limits = limits;
        this.listener = listener;
        this.waiters.add(done);
        this.cleanedAtStartSectors = cleanedAtStartSectors;
        this.runningSinceNs = nowNs;
    }

    /**
     * Refuses a deadline the drain cannot meet: dirty bytes / time left above the backing device's measured
     * bandwidth or above the drain's own cap. Both sides of the comparison are in the message.
     */
    static void checkDeadline(DrainLimits limits, long dirtyBytes, double measuredBytesPerSecond, long nowNs) {
        if (!limits.hasDeadline()) {
            return;
        }
        long leftNs = limits.deadlineNs() - nowNs;
        if (leftNs <= 0) {
            throw new DrainRefused("the deadline has already passed", Double.POSITIVE_INFINITY,
                    measuredBytesPerSecond);
        }
        double needed = dirtyBytes * 1e9 / leftNs;
        String what = String.format(Locale.ROOT, "deadline cannot be met: %s dirty in %s s needs %s",
                mib(dirtyBytes), seconds(leftNs), perSecond(needed));
        if (needed > measuredBytesPerSecond) {
            throw new DrainRefused(what + ", more than the " + perSecond(measuredBytesPerSecond)
                    + " the backing device has shown it can write", needed, measuredBytesPerSecond);
        }
        if (limits.rateMaxSectorsPerSecond() > 0 && needed > limits.rateMaxBytesPerSecond()) {
            throw new DrainRefused(what + ", more than the drain's rate cap of "
                    + perSecond(limits.rateMaxBytesPerSecond()), needed, limits.rateMaxBytesPerSecond());
        }
    }

    /** The job's state; a job whose final journal commit is under way still reads {@link DrainState#RUNNING}. */
    public DrainState state() {
        return state;
    }

    /** What the operator asked for. */
    public DrainLimits limits() {
        return limits;
    }

    /** Why the job failed or was cancelled, or null. */
    public String error() {
        return error;
    }

    /** The last progress report, or null before the first. */
    public DrainProgress lastProgress() {
        return last;
    }

    /** True while the job governs writeback: running or paused, and not yet ending. */
    boolean active() {
        return state.active() && !ending;
    }

    /** True while the job drives passes at its rate. */
    boolean running() {
        return state == DrainState.RUNNING && !ending;
    }

    /** A second caller waits for this job too. */
    void join(IoCallback done) {
        waiters.add(done);
    }

    /** Holds passes; idempotent. */
    void pause(long nowNs) {
        check(active(), "pause");
        if (state == DrainState.RUNNING) {
            runningNsBefore += nowNs - runningSinceNs;
            state = DrainState.PAUSED;
        }
    }

    /** Lets passes go again; idempotent. */
    void resume(long nowNs) {
        check(active(), "resume");
        if (state == DrainState.PAUSED) {
            runningSinceNs = nowNs;
            state = DrainState.RUNNING;
        }
    }

    private void check(boolean condition, String action) {
        if (!condition) {
            throw new DrainConflict("cannot " + action + " a drain that is " + describeState());
        }
    }

    /**
     * True while the job is finishing: nothing is left to write back and its clean markings are being committed
     * ({@link #state()} still says running or paused). It can no longer be paused or cancelled; it ends in moments.
     */
    public boolean finishing() {
        return ending;
    }

    /** The state as an operator should read it: "finishing" while {@link #finishing}, else the state's name. */
    String describeState() {
        return ending ? "finishing" : state.name().toLowerCase(Locale.ROOT);
    }

    /** Nothing is dirty: from now on the job only waits for its journal commit. */
    void ending() {
        ending = true;
    }

    /**
     * Ends the job in {@code finalState} and returns whom to tell, with {@code result}; the caller completes them
     * from a fresh loop task (never inside the call that ended the job).
     */
    List<IoCallback> end(DrainState finalState, String why) {
        if (finalState.active()) {
            throw new IllegalArgumentException("a drain cannot end in state " + finalState);
        }
        state = finalState;
        ending = false;
        error = why;
        List<IoCallback> told = List.copyOf(waiters);
        waiters.clear();
        return told;
    }

    /**
     * The rate passes are held to now, sectors per second; 0 = no limit of this job's (full speed). A deadline sets
     * dirty / time left with the margin, at least {@link #DEADLINE_RATE_MIN_SECTORS_PER_SECOND}, never above the cap.
     */
    long ceilingSectorsPerSecond(long dirtySectors, long nowNs) {
        long cap = limits.rateMaxSectorsPerSecond();
        if (!limits.hasDeadline() || nowNs >= limits.deadlineNs()) {
            return cap;
        }
        double leftSeconds = (limits.deadlineNs() - nowNs) / 1e9;
        long needed = Math.max(DEADLINE_RATE_MIN_SECTORS_PER_SECOND,
                (long) Math.ceil(dirtySectors * DEADLINE_MARGIN / leftSeconds));
        return cap > 0 ? Math.min(cap, needed) : needed;
    }

    /** Tells the listener how far the job got and keeps the report; {@code finished} once nothing is left. */
    DrainProgress report(long dirtySectors, long cleanedSectors, long nowNs, double measuredBytesPerSecond,
                         boolean finished) {
        long writtenBack = (cleanedSectors - cleanedAtStartSectors) * BlockDevice.SECTOR_BYTES;
        long runningNs = runningNsBefore + (state == DrainState.RUNNING ? nowNs - runningSinceNs : 0);
        double bytesPerSecond = runningNs > 0 ? writtenBack * 1e9 / runningNs : 0;
        long left = dirtySectors * BlockDevice.SECTOR_BYTES;
        long etaNs = left == 0 ? 0 : state == DrainState.PAUSED || bytesPerSecond <= 0 ? -1
                : (long) (left / bytesPerSecond * 1e9);
        double needed = 0;
        String warning = null;
        if (limits.hasDeadline()) {
            long leftNs = limits.deadlineNs() - nowNs;
            if (leftNs <= 0) {
                warning = left == 0 ? null : "the deadline has passed with " + mib(left) + " left";
            } else {
                needed = left * 1e9 / leftNs;
                warning = deadlineWarning(needed, measuredBytesPerSecond);
            }
        }
        long ceiling = running() ? ceilingSectorsPerSecond(dirtySectors, nowNs) * BlockDevice.SECTOR_BYTES : 0;
        last = new DrainProgress(state, left, writtenBack, bytesPerSecond, etaNs, ceiling, needed, warning, finished);
        listener.accept(last);
        return last;
    }

    private String deadlineWarning(double needed, double measuredBytesPerSecond) {
        if (needed > measuredBytesPerSecond) {
            return "the deadline may be missed: it needs " + perSecond(needed) + ", the backing device has shown "
                    + perSecond(measuredBytesPerSecond);
        }
        if (limits.rateMaxSectorsPerSecond() > 0 && needed > limits.rateMaxBytesPerSecond()) {
            return "the deadline may be missed: it needs " + perSecond(needed) + ", above the rate cap of "
                    + perSecond(limits.rateMaxBytesPerSecond());
        }
        if (state == DrainState.PAUSED && needed > 0) {
            return "paused: the deadline needs " + perSecond(needed) + " and the need grows while paused";
        }
        return null;
    }

    private static String seconds(long ns) {
        return ns < 100_000_000_000L ? String.format(Locale.ROOT, "%.1f", ns / 1e9)
                : String.format(Locale.ROOT, "%.0f", ns / 1e9);
    }

    private static String mib(double bytes) {
        return String.format(Locale.ROOT, "%.1f MiB", bytes / (1 << 20));
    }

    private static String perSecond(double bytesPerSecond) {
        return String.format(Locale.ROOT, "%.1f MiB/s", bytesPerSecond / (1 << 20));
    }
}
