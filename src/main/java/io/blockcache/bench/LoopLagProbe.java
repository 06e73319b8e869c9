package io.blockcache.bench;

import io.blockcache.engine.RecoveryProgress;
import io.blockcache.loop.RealLoop;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Measures, from outside, how long a real loop keeps other tasks waiting while it recovers: a thread posts a tiny
 * task every {@value #PERIOD_US} µs and records the time until it ran (the most a request would have waited) and
 * the recovery phase the longest wait ended in. This covers everything the loop did, the sliced replay and the
 * steps that are not sliced alike.
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
    private volatile boolean stopping;
    private volatile long lagNsMax;
    private volatile RecoveryProgress.Phase lagPhase;
    private Thread thread;

    LoopLagProbe(RealLoop loop, RecoveryProgress progress) {
        this.loop = loop;
        this.progress = progress;
    }

    void start() {
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

    /** The recovery phase in which the longest wait ended (read after {@link #stop}). */
    RecoveryProgress.Phase lagPhase() {
        return lagPhase;
    }

    private void probe() {
        while (!stopping) {
            long postedNs = System.nanoTime();
            CountDownLatch ran = new CountDownLatch(1);
            loop.execute(() -> {
                long lagNs = System.nanoTime() - postedNs;
                if (lagNs > lagNsMax) {
                    lagNsMax = lagNs;
                    lagPhase = progress.phase();
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
