package io.blockcache.loop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SimLoopTest {

    /** A seeded scenario: tasks that schedule more tasks at random delays, some cancelled, some traced. */
    private static long runScenario(long seed) {
        SimLoop loop = new SimLoop();
        Prng prng = new Prng(seed);
        List<Timer> timers = new ArrayList<>();
        int[] budget = {5_000};
        Runnable[] spawn = new Runnable[1];
        spawn[0] = () -> {
            loop.trace(loop.nowNs());
            int children = prng.nextInt(3);
            for (int i = 0; i < children && budget[0] > 0; i++, budget[0]--) {
                long delayNs = prng.chance(0.3) ? 0 : prng.nextLongBetween(1, 1_000_000);
                timers.add(loop.schedule(delayNs, spawn[0]));
            }
            if (!timers.isEmpty() && prng.chance(0.1)) {
                timers.get(prng.nextInt(timers.size())).cancel();
            }
        };
        for (int i = 0; i < 20; i++) {
            loop.execute(spawn[0]);
        }
        loop.runUntilIdle();
        loop.trace(loop.eventsRun());
        return loop.traceHash();
    }

    @Test
    void twoRunsOfOneSeededScenarioProduceTheIdenticalTrace() {
        // Proves the simulated loop is deterministic: same seed, same event trace; another seed, another trace.
        for (long seed = 1; seed <= 5; seed++) {
            assertThat(runScenario(seed)).as("seed %d", seed).isEqualTo(runScenario(seed));
        }
        assertThat(runScenario(1)).isNotEqualTo(runScenario(2));
    }

    @Test
    void eventsRunInTimeOrderWithTiesInSubmissionOrder() {
        // Proves the ordering rule: due time first, then the order tasks were queued.
        SimLoop loop = new SimLoop();
        List<String> order = new ArrayList<>();
        loop.schedule(20, () -> order.add("t20-a"));
        loop.schedule(10, () -> order.add("t10"));
        loop.schedule(20, () -> order.add("t20-b"));
        loop.execute(() -> order.add("now-a"));
        loop.execute(() -> {
            order.add("now-b");
            loop.execute(() -> order.add("now-c"));
        });
        loop.runUntilIdle();
        assertThat(order).containsExactly("now-a", "now-b", "now-c", "t10", "t20-a", "t20-b");
        assertThat(loop.nowNs()).isEqualTo(20);
    }

    @Test
    void timeStandsStillInsideAnEventAndAdvancesOnlyToDueTimes() {
        // Proves virtual time: each event sees exactly its due time, and runUntil moves the clock forward.
        SimLoop loop = new SimLoop();
        long[] seen = new long[2];
        loop.schedule(1_000, () -> seen[0] = loop.nowNs());
        loop.schedule(5_000, () -> seen[1] = loop.nowNs());
        loop.runUntil(3_000);
        assertThat(seen[0]).isEqualTo(1_000);
        assertThat(seen[1]).isZero();
        assertThat(loop.nowNs()).isEqualTo(3_000);
        loop.runFor(2_000);
        assertThat(seen[1]).isEqualTo(5_000);
    }

    @Test
    void cancelledTimersNeverRunAndCancelReportsWhetherItWorked() {
        // Proves Timer.cancel: true before the task ran, false after, and a cancelled task never runs.
        SimLoop loop = new SimLoop();
        int[] ran = new int[2];
        Timer first = loop.schedule(10, () -> ran[0]++);
        Timer second = loop.schedule(20, () -> ran[1]++);
        assertThat(first.cancel()).isTrue();
        assertThat(first.cancel()).isFalse();
        loop.runUntilIdle();
        assertThat(ran).containsExactly(0, 1);
        assertThat(second.cancel()).isFalse();
    }

    @Test
    void discardPendingDropsQueuedWorkLikeAPowerCut() {
        // Proves a crash drops every queued event while the clock keeps its value.
        SimLoop loop = new SimLoop();
        int[] ran = {0};
        loop.schedule(100, () -> ran[0]++);
        loop.runUntil(50);
        loop.discardPending();
        loop.runUntilIdle();
        assertThat(ran[0]).isZero();
        assertThat(loop.nowNs()).isEqualTo(50);
    }

    @Test
    void foreignThreadsAreRefused() throws Exception {
        // Proves the single-thread rule is enforced, not just documented.
        SimLoop loop = new SimLoop();
        Throwable[] thrown = new Throwable[1];
        Thread other = new Thread(() -> {
            try {
                loop.execute(() -> { });
            } catch (IllegalStateException e) {
                thrown[0] = e;
            }
        });
        other.start();
        other.join();
        assertThat(thrown[0]).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> loop.schedule(-1, () -> { })).isInstanceOf(IllegalArgumentException.class);
    }
}
