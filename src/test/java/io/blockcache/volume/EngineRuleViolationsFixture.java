package io.blockcache.volume;

import java.time.Clock;
import java.time.Instant;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;

/**
 * Breaks every engine rule once on purpose (for {@code rules.EngineRulesTest}): an engine package that reads the
 * wall clock, sleeps, draws unseeded random numbers and blocks. Test sources only; never called.
 */
final class EngineRuleViolationsFixture {
    private EngineRuleViolationsFixture() {
    }

    static long wallClock() {
        return System.currentTimeMillis() + System.nanoTime() + Instant.now().getNano() + Clock.systemUTC().millis();
    }

    static void sleep() throws InterruptedException {
        Thread.sleep(1);
    }

    static double unseededRandomness() {
        return new Random().nextInt() + ThreadLocalRandom.current().nextInt() + Math.random();
    }

    /** Allowed: a seeded generator is deterministic (engine code still prefers loop.Prng). */
    static int seededRandomness() {
        return new Random(42).nextInt();
    }

    static Object block(CompletableFuture<Object> future, Object monitor) throws Exception {
        synchronized (monitor) {
            monitor.wait(1);
        }
        LockSupport.parkNanos(1);
        return future.get() == null ? future.join() : null;
    }
}
