package io.blockcache.device;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.loop.EventLoop;
import io.blockcache.loop.Timer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Completion delivery on the loop: in order, in batches, and never holding the loop for long. */
class CompletionBatcherTest {
    /** A loop run by hand whose clock the callbacks move, as real work moves a real loop's clock. */
    private static final class HandLoop implements EventLoop {
        final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
        long nowNs;
        boolean running;

        @Override
        public long nowNs() {
            return nowNs;
        }

        @Override
        public void execute(Runnable task) {
            tasks.add(task);
        }

        @Override
        public Timer schedule(long delayNs, Runnable task) {
            throw new UnsupportedOperationException("not used");
        }

        @Override
        public boolean inLoop() {
            return running;
        }

        /** Runs the next queued task; returns false if none was queued. */
        boolean runOne() {
            Runnable task = tasks.poll();
            if (task == null) {
                return false;
            }
            running = true;
            try {
                task.run();
            } finally {
                running = false;
            }
            return true;
        }
    }

    @Test
    void aChainOfSlowInlineCompletionsYieldsTheLoopOnceTheTaskHasTakenItsTime() {
        // Proves the time bound: each callback takes 0.3 ms of loop time and, like a chained inline read, offers
        // the next completion from the loop thread. Without the bound all 40 ran in one task (12 ms); with it a
        // task stops within a clock read of 1 ms, other tasks run between, and the order is kept.
        HandLoop loop = new HandLoop();
        CompletionBatcher batcher = new CompletionBatcher(loop);
        List<Integer> order = new ArrayList<>();
        int links = 40;
        IoCallback[] link = new IoCallback[1];
        link[0] = result -> {
            order.add(order.size());
            loop.nowNs += 300_000L;
            if (order.size() < links) {
                batcher.deliver(link[0], IoResult.OK);
            }
        };
        loop.running = true;
        batcher.deliver(link[0], IoResult.OK);
        loop.running = false;
        int[] deliveredBeforeOtherTask = {-1};
        loop.execute(() -> deliveredBeforeOtherTask[0] = order.size()); // e.g. an admin request

        long longestNs = 0;
        while (true) {
            long before = loop.nowNs;
            if (!loop.runOne()) {
                break;
            }
            longestNs = Math.max(longestNs, loop.nowNs - before);
        }
        assertThat(order).hasSize(links);
        assertThat(order).isSorted();
        assertThat(longestNs).as("loop time of the longest delivery task")
                .isLessThanOrEqualTo(CompletionBatcher.TASK_NS_MAX
                        + CompletionBatcher.DELIVERIES_BETWEEN_CLOCK_READS * 300_000L);
        assertThat(deliveredBeforeOtherTask[0]).as("completions delivered before the other task ran")
                .isBetween(1, links / 4);
    }

    @Test
    void quickCompletionsAreDeliveredByOneTask() {
        // Proves the batching is intact: 100 completions that take no time go in one task, in order.
        HandLoop loop = new HandLoop();
        CompletionBatcher batcher = new CompletionBatcher(loop);
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            int n = i;
            batcher.deliver(result -> order.add(n), IoResult.OK);
        }
        assertThat(loop.tasks).hasSize(1);
        loop.runOne();
        assertThat(order).hasSize(100).isSorted();
        assertThat(loop.tasks).isEmpty();
    }
}
