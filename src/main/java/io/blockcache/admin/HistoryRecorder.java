package io.blockcache.admin;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Samples the stats once a second into a {@link MetricHistory} for {@code /api/history}, on a thread of its own.
 * The snapshot is the one {@code /api/stats} takes ({@link StatsCollector} on the loop, reached through
 * {@code LoopCalls}): the loop copies its counters and goes on, and this thread waits for the copy and does the
 * arithmetic, so sampling never holds the loop longer than one {@code /api/stats} request does. A second whose
 * snapshot failed (the loop did not answer in time) is a gap in the charts; failures are counted.
 *
 * <p>Thread rule: {@link #start} and {@link #close} from any thread; {@link #history} from any thread.
 */
final class HistoryRecorder implements AutoCloseable {
    static final long PERIOD_MS = 1000;
    /**
     * Samples are taken half-way through each wall-clock second, so that a sample a few hundred ms late still lands
     * in its own second's slot rather than in the next one.
     */
    private static final long PHASE_MS = 500;

    private final MetricHistory history = new MetricHistory();
    private final HistorySampler sampler = new HistorySampler();
    private final Supplier<StatsSnapshot> snapshots;
    private final LongSupplier epochMs;
    private ScheduledExecutorService thread;
    private volatile long failures;
    private volatile String lastFailure;

    /**
     * @param snapshots takes a snapshot (hops to the loop and waits; may throw when it cannot)
     * @param epochMs the wall clock, milliseconds since the epoch
     */
    HistoryRecorder(Supplier<StatsSnapshot> snapshots, LongSupplier epochMs) {
        this.snapshots = snapshots;
        this.epochMs = epochMs;
    }

    /** Starts sampling every {@link #PERIOD_MS} ms. */
    synchronized void start() {
        if (thread != null) {
            throw new IllegalStateException("history recorder already started");
        }
        thread = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread one = new Thread(task, "blockcache-history");
            one.setDaemon(true);
            return one;
        });
        long delayMs = Math.floorMod(PHASE_MS - epochMs.getAsLong(), PERIOD_MS);
        thread.scheduleAtFixedRate(this::sampleOnce, delayMs, PERIOD_MS, TimeUnit.MILLISECONDS);
    }

    /** Takes one sample now; what the thread runs, and what tests call. */
    void sampleOnce() {
        StatsSnapshot snapshot;
        try {
            snapshot = snapshots.get();
        } catch (RuntimeException unavailable) {
            // No snapshot this second: a gap in the charts, counted and named in /api/history.
            failures++;
            lastFailure = String.valueOf(unavailable.getMessage());
            return;
        }
        long nowMs = epochMs.getAsLong();
        history.record(nowMs / 1000, sampler.points(snapshot, nowMs));
    }

    MetricHistory history() {
        return history;
    }

    /**
     * The second a window of the history ends at now: the last whole second, which a healthy sampler has sampled
     * (it samples half-way through each second), so a gap at the end means samples are missing.
     */
    long endSecond() {
        return epochMs.getAsLong() / 1000 - 1;
    }

    /** Seconds whose snapshot failed. */
    long failures() {
        return failures;
    }

    /** Why the last failed one failed, or null. */
    String lastFailure() {
        return lastFailure;
    }

    /** Stops sampling; a sample under way gets a second. */
    @Override
    public synchronized void close() {
        if (thread == null) {
            return;
        }
        thread.shutdownNow();
        try {
            thread.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
