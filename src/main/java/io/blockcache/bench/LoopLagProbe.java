package io.blockcache.bench;

import io.blockcache.engine.RecoveryProgress;
import io.blockcache.loop.RealLoop;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Measures, from outside, how long a real loop keeps other tasks waiting while it recovers: a thread posts a tiny
 * task every {@value #PERIOD_US} µs and records the time until it ran (the most a request would have waited), and
 * the task notes when each recovery phase was first seen. This covers everything the loop did, the sliced replay
 * and the steps that are not sliced alike.
 *
 * <p>Thread rule: {@link #start} and {@link #stop} from the benchmark's thread; the probe runs on its own.
 */
final class LoopLagProbe {
    /** How often a probe task is posted: fine enough to time 10 ms slices. */
    private static final long PERIOD_US = 1000;
    /** How long one probe waits for its task before it counts the loop as stuck and gives up. */
    private static final long WAIT_SECONDS_MAX = 600;

    private final RealLoop loop;
    private final RecoveryProgress progress;
    private final Map<RecoveryProgress.Phase, Long> phaseFirstSeenNs = new EnumMap<>(RecoveryProgress.Phase.class);
    private volatile boolean stopping;
    private volatile long lagNsMax;
    private Thread thread;
    private long startNs;

    LoopLagProbe(RealLoop loop, RecoveryProgress progress) {
        this.loop = loop;
        this.progress = progress;
    }

    void start() {
        startNs = System.nanoTime();
        thread = new Thread(this::probe, "recovery-lag-probe");
        thread.setDaemon(true);
        thread.start();
    }

    /** Stops probing and returns the longest wait seen, in ns. */
    long stop() throws InterruptedException {
        stopping = true;
        thread.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS_MAX));
        return lagNsMax;
    }

    /** When each phase was first seen, in ns since {@link #start} (read after {@link #stop}). */
    synchronized Map<RecoveryProgress.Phase, Long> phaseFirstSeenNs() {
        return new EnumMap<>(phaseFirstSeenNs);
    }

    private void probe() {
        while (!stopping) {
            long postedNs = System.nanoTime();
            CountDownLatch ran = new CountDownLatch(1);
            loop.execute(() -> {
                long nowNs = System.nanoTime();
                lagNsMax = Math.max(lagNsMax, nowNs - postedNs);
                synchronized (this) {
                    phaseFirstSeenNs.putIfAbsent(progress.phase(), nowNs - startNs);
                }
                ran.countDown();
            });
            try {
                if (!ran.await(WAIT_SECONDS_MAX, TimeUnit.SECONDS)) {
                    return;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(PERIOD_US));
        }
    }
}
