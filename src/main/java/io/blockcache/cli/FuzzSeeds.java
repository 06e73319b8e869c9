package io.blockcache.cli;

import io.blockcache.fuzz.FuzzResult;
import io.blockcache.fuzz.FuzzTotals;
import io.blockcache.fuzz.FuzzViolation;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongFunction;

/**
 * Runs many fuzz seeds on a few threads (each seed owns its simulated loop, so seeds run in parallel safely) and
 * adds them up: the engine of {@code simulate fuzz} and of the fuzz tests. It blocks and reads the wall clock
 * (for {@code --minutes}), so it lives with the command line, not in the engine packages.
 */
public final class FuzzSeeds {
    private FuzzSeeds() {
    }

    /**
     * Runs seeds {@code first, first + 1, ...}: {@code count} of them, or (with {@code Long.MAX_VALUE}) until
     * {@code deadlineNs} of {@link System#nanoTime()}; whichever ends first.
     *
     * @param scenario runs one seed; throws {@link FuzzViolation} when an oracle breaks
     * @param afterEach told after each seed, with the totals locked (for progress lines)
     */
    public static FuzzTotals run(long first, long count, long deadlineNs, int threads,
                                 LongFunction<FuzzResult> scenario, Consumer<FuzzTotals> afterEach)
            throws InterruptedException, ExecutionException {
        FuzzTotals totals = new FuzzTotals();
        AtomicLong next = new AtomicLong(first);
        long end = count == Long.MAX_VALUE ? Long.MAX_VALUE : first + count;
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, threads), r -> {
            Thread t = new Thread(r, "fuzz");
            t.setDaemon(true);
            return t;
        });
        try {
            Future<?>[] workers = new Future<?>[Math.max(1, threads)];
            for (int i = 0; i < workers.length; i++) {
                workers[i] = pool.submit(() -> {
                    for (long seed = next.getAndIncrement(); seed < end && System.nanoTime() < deadlineNs;
                            seed = next.getAndIncrement()) {
                        Object outcome;
                        try {
                            outcome = scenario.apply(seed);
                        } catch (FuzzViolation violation) {
                            outcome = violation;
                        }
                        synchronized (totals) {
                            if (outcome instanceof FuzzResult result) {
                                totals.add(result);
                            } else {
                                totals.add((FuzzViolation) outcome);
                            }
                            afterEach.accept(totals);
                        }
                    }
                });
            }
            for (Future<?> worker : workers) {
                worker.get();
            }
        } finally {
            pool.shutdownNow();
            pool.awaitTermination(10, TimeUnit.SECONDS);
        }
        return totals;
    }
}
