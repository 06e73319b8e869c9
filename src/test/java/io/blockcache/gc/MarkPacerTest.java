package io.blockcache.gc;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.device.IoCallback;
import io.blockcache.loop.Clock;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** The cost- and budget-based pacing rules of the sliced mark (docs/GC.md "Pacing"), driven by a manual clock. */
class MarkPacerTest {
    private static final long MS = 1_000_000L;
    private static final long US = 1_000L;

    /** A clock the test moves by hand. */
    private static final class ManualClock implements Clock {
        long nowNs;

        @Override
        public long nowNs() {
            return nowNs;
        }
    }

    private final ManualClock clock = new ManualClock();
    private final MarkPacer pacer = new MarkPacer(clock);
    private final GcConfig config = GcConfig.defaults();

    /** One slice of {@code nodes} nodes that costs {@code costNs} of the manual clock. */
    private void slice(long nodes, long costNs) {
        pacer.beginSlice();
        clock.nowNs += costNs;
        pacer.endSlice(nodes);
    }

    @Test
    void sliceSizeFollowsTheMeasuredCostWithinTheFloorAndAtMostDoubles() {
        // Proves the cost bound: target / EWMA cost per node, never below 10 nodes, never more than 2x the last.
        pacer.startRun(clock.nowNs, 100_000, 0, config);
        assertThat(pacer.sliceNodes()).as("nothing measured yet: the GC-latency patch's floor").isEqualTo(10);
        slice(10, 10 * US); // 1 µs a node: 0.5 ms would be 500 nodes, but a slice at most doubles
        assertThat(pacer.sliceNodes()).isEqualTo(20);
        slice(20, 20 * US);
        assertThat(pacer.sliceNodes()).isEqualTo(40);
        slice(40, 4 * MS); // 100 µs a node: EWMA 1 + (100 - 1) / 8 = 13.375 µs, 0.5 ms / 13.375 µs = 37.4
        assertThat(pacer.sliceNodes()).isEqualTo(37);
        slice(37, 1000 * MS); // very slow: the floor holds
        assertThat(pacer.sliceNodes()).isEqualTo(10);
    }

    @Test
    void theNextRunStartsFromTheLastRunsCostEstimate() {
        // Proves the estimate survives runs: a run after a measured one starts at target / cost, not at 10.
        pacer.startRun(clock.nowNs, 1_000_000, 0, config);
        slice(1_000_000, 1000 * MS); // an unsliced mark: 1 µs a node
        pacer.startRun(clock.nowNs, 1_000_000, 0, config);
        assertThat(pacer.sliceNodes()).isEqualTo(500);
    }

    @Test
    void budgetIsTheTighterOfPercentOfUnslicedAndHalfTheInterval() {
        // Proves the duration budget: 130 % of the unsliced estimate, or interval / 2, or none if neither known.
        assertThat(GcPacing.durationBudgetNs(1000 * MS, 130, 0)).isEqualTo(1300 * MS);
        assertThat(GcPacing.durationBudgetNs(1000 * MS, 130, 2000 * MS)).isEqualTo(1000 * MS);
        assertThat(GcPacing.durationBudgetNs(-1, 130, 10_000 * MS)).isEqualTo(5000 * MS);
        assertThat(GcPacing.durationBudgetNs(-1, 130, 0)).isEqualTo(GcPacing.UNBOUNDED_NS);
        assertThat(GcPacing.durationBudgetNs(99, 130, 0)).isEqualTo(128); // no overflow trick loses a whole ns
    }

    @Test
    void pausesOnlyWhileTheFrontEndIsBusyNeverWhileAllocationsWaitAndShareTheSlack() {
        // Proves the pause rule: yield when idle or starved; else min(sleep, slack / slices left), 0 if behind.
        long sleep = 10 * MS;
        assertThat(GcPacing.pauseNs(false, false, sleep, GcPacing.UNBOUNDED_NS, 5)).isZero();
        assertThat(GcPacing.pauseNs(true, true, sleep, GcPacing.UNBOUNDED_NS, 5)).isZero();
        assertThat(GcPacing.pauseNs(true, false, sleep, GcPacing.UNBOUNDED_NS, 5)).isEqualTo(sleep);
        assertThat(GcPacing.pauseNs(true, false, sleep, 25 * MS, 5)).isEqualTo(5 * MS);
        assertThat(GcPacing.pauseNs(true, false, sleep, 1000 * MS, 5)).isEqualTo(sleep);
        assertThat(GcPacing.pauseNs(true, false, sleep, -3 * MS, 5)).isZero();
        assertThat(GcPacing.pauseNs(true, false, 0, 1000 * MS, 5)).isZero();
    }

    @Test
    void aBusyMarkSleepsButFinishesWithin130PercentOfItsWork() {
        // Proves the budget end to end: 10,000 nodes at 1 µs with the front end always busy take <= 1.3x the
        // work; the sleeps use most of the allowance (not just yields), and none is longer than 10 ms.
        long startNs = clock.nowNs;
        pacer.startRun(startNs, 10_000, 0, config);
        long done = 0;
        long slices = 0;
        long longestPauseNs = 0;
        long sleptNs = 0;
        while (done < 10_000) {
            long nodes = Math.min(pacer.sliceNodes(), 10_000 - done);
            slice(nodes, nodes * US);
            done += nodes;
            slices++;
            if (done < 10_000) {
                long pause = pacer.pauseNs(clock.nowNs, true, false);
                longestPauseNs = Math.max(longestPauseNs, pause);
                sleptNs += pause;
                clock.nowNs += pause;
            }
        }
        long workNs = 10 * MS;
        assertThat(pacer.workNs()).isEqualTo(workNs);
        assertThat(clock.nowNs - startNs).isLessThanOrEqualTo(workNs * 13 / 10);
        assertThat(sleptNs).isGreaterThan(workNs / 5).isEqualTo(pacer.sleptNs());
        assertThat(longestPauseNs).isLessThanOrEqualTo(config.sliceSleepNs());
        assertThat(slices).isBetween(20L, 40L); // ramp 10, 20, ... 320, 500 (0.5 ms), so ~25 slices
    }

    @Test
    void behindItsBudgetAMarkTakesSlicesOfTwiceTheTarget() {
        // Proves the catch-up rule: once a pause finds no slack left, the next slices size to 2 x 0.5 ms.
        pacer.startRun(clock.nowNs, 1_000_000, 0, config);
        slice(1_000_000, 1000 * MS); // learn 1 µs a node
        pacer.startRun(clock.nowNs, 100_000, 0, config);
        assertThat(pacer.sliceNodes()).isEqualTo(500);
        slice(500, 500 * US);
        assertThat(pacer.pauseNs(clock.nowNs, true, false)).as("on time: a share of the slack").isPositive();
        slice(500, 500 * US);
        assertThat(pacer.sliceNodes()).isEqualTo(500);
        clock.nowNs += 200 * MS; // the front end held the loop: far past 130 % of the 100 ms of work
        assertThat(pacer.pauseNs(clock.nowNs, true, false)).isZero();
        slice(500, 500 * US);
        assertThat(pacer.sliceNodes()).isEqualTo(1000);
    }

    @Test
    void halfTheIntervalCanForbidSleepingAltogether() {
        // Proves the GC-latency patch's side of the budget: GCs every 2x the work leave no time to sleep.
        pacer.startRun(clock.nowNs, 10_000, 0, config);
        slice(10_000, 10 * MS); // learn 1 µs a node
        long startNs = clock.nowNs;
        pacer.startRun(startNs, 10_000, 20 * MS, config); // budget min(13 ms, 10 ms) = the work itself
        slice(pacer.sliceNodes(), pacer.sliceNodes() * US);
        assertThat(pacer.pauseNs(clock.nowNs, true, false)).isZero();
    }

    @Test
    void whereNothingIsMeasurableTheNodeCountRulesAloneApply() {
        // Proves the simulated-time fallback: slices sized from the interval, full 10 ms sleeps within interval/2.
        pacer.startRun(clock.nowNs, 100_000, 2000 * MS, config);
        assertThat(pacer.sliceNodes()).isEqualTo(1000);
        slice(1000, 0);
        assertThat(pacer.sliceNodes()).isEqualTo(1000);
        assertThat(pacer.pauseNs(clock.nowNs, true, false)).isEqualTo(10 * MS);
        clock.nowNs += 995 * MS; // 5 ms of the 1 s budget left, over 99 slices
        assertThat(pacer.pauseNs(clock.nowNs, true, false)).isEqualTo(5 * MS / 99);
    }

    @Test
    void inTheCacheSetACostlySliceShrinksToTheFloorAndSleepsStayWithinTheBudget() {
        // Proves the wiring in GarbageCollector: with every slice measuring 1 ms (> 0.5 ms), slices are 10 nodes;
        // with the front end busy the mark sleeps, but at most 30 % of its measured work (bcache's GC-latency patch
        // alone: 10 ms per slice).
        GcHarness h = new GcHarness();
        long[] ticks = {0};
        h.gc().setSliceCostClock(() -> ticks[0] += MS); // each read 1 ms later: every slice measures 1 ms
        h.gc().setConfig(h.gc().config().withWrittenFractionDenominator(1)); // no GC while filling
        for (int i = 0; i < 3000; i += 2) {
            h.write(i, GcHarness.block(i, 1), false);
        }
        long nodes = h.volume().index().extents().nodeCount();
        boolean[] stop = {false};
        Runnable[] reader = new Runnable[1];
        reader[0] = () -> h.volume().read(1L << 20, ByteBuffer.allocate(4096), (IoCallback) r -> {
            if (!stop[0]) {
                reader[0].run();
            }
        });
        reader[0].run();
        long startNs = h.loop.nowNs();
        boolean[] done = {false};
        h.gc().gc(r -> done[0] = true);
        h.loop.runUntil(() -> done[0]);
        stop[0] = true;
        GcStats stats = h.gc().stats();
        assertThat(stats.slicesLast()).isEqualTo((nodes + 9) / 10).isGreaterThan(1);
        assertThat(stats.markWorkNsLast()).isEqualTo(stats.slicesLast() * MS);
        assertThat(stats.markSleepNsLast()).isPositive().isLessThanOrEqualTo(stats.markWorkNsLast() * 3 / 10);
        assertThat(h.loop.nowNs() - startNs).isLessThan((stats.slicesLast() - 1) * 10 * MS);
    }
}
