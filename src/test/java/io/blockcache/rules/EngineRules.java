package io.blockcache.rules;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaCall;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.lang.ArchRule;
import java.security.SecureRandom;
import java.util.List;
import java.util.Random;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;

/**
 * The engine rules (docs/ARCHITECTURE.md §7) as ArchUnit rules: engine code never reads the wall clock, sleeps, makes
 * unseeded random numbers or blocks. Time comes from the loop ({@code EventLoop.nowNs}), randomness from a seeded
 * {@code loop.Prng}, waiting from a callback.
 *
 * <p>Engine code is every production class except the packages and classes in {@link #EXEMPT_PACKAGES} and
 * {@link #WALL_CLOCK_EXEMPT_CLASSES} / {@link #BLOCKING_EXEMPT_CLASSES}, each with its reason.
 */
final class EngineRules {
    /**
     * Packages that live on real threads by design: {@code loop} is where time and threads come from;
     * {@code cli}, {@code admin}, {@code bench}, {@code host} and {@code embed} are foreign threads that wait for
     * the loop ({@code LoopCalls}, futures) and measure or open files in real time.
     */
    static final List<String> EXEMPT_PACKAGES = List.of("loop", "cli", "admin", "bench", "host", "embed");

    /**
     * Classes outside those packages that may read the wall clock or draw unseeded random numbers, with the reason
     * (none may sleep). Stricter than the grep of the before-stop hook, which lets every
     * {@code device/File*} class off.
     */
    static final Map<String, String> WALL_CLOCK_EXEMPT_CLASSES = Map.of(
            "device.FileDevice", "close() gives its blocking I/O threads a deadline to stop (THREAD_STOP_NS_MAX)",
            "replication.ReplicaLease", "the replication lease is real time by nature: it must end before another"
                    + " member can be elected, which Raft's real election timeouts decide; it runs on its own thread",
            "nbd.PskHandshaker", "TLS needs unpredictable randomness (nonces, ephemeral keys): a SecureRandom, as "
                    + "a seeded Prng would make the keys guessable; it never reaches engine state");

    /**
     * Classes outside those packages that may block, with the reason: the real-device and NBD transport
     * classes, whose own threads exist to block on a file or a socket so that the loop never does.
     */
    static final Map<String, String> BLOCKING_EXEMPT_CLASSES = Map.ofEntries(
            Map.entry("device.FileDevice", "its I/O threads take requests from a queue and block in FileChannel; "
                    + "close() joins them"),
            Map.entry("replication.ReplicaLease", "its renewal thread waits for each renewal to commit, and between"
                    + " them; hold is called by serve's main thread, never the loop's"),
            Map.entry("nbd.Connection", "a connection's reader thread: bounds in-flight requests and bytes with "
                    + "semaphores and waits for its writer at close"),
            Map.entry("nbd.ReplyWriter", "a connection's writer thread: parks until a reply is ready; stop joins it"),
            Map.entry("nbd.NbdServer", "stopAccepting joins the acceptor thread (a foreign thread's call, never the "
                    + "loop's)"),
            Map.entry("nbd.IdleTracker", "awaitIdle waits on its monitor, called by a stopping server's thread"),
            Map.entry("nbd.BufferBudget", "a connection's reader waits for buffer budget (never the loop: buffers "
                    + "are taken before a request is handed to it)"),
            Map.entry("nbd.ConnectionBudget", "a connection's reader waits for its share of the buffer budget"),
            Map.entry("nbd.ConnectionWatchdog", "its own virtual thread parks between ticks of the timeout checks"),
            Map.entry("backing.NbdConnection", "an NBD client connection's sender and reader threads block on their "
                    + "queue and socket so that the loop never does"),
            Map.entry("backing.NbdReplay", "replays unflushed writes on the reconnect thread and waits for their "
                    + "replies"),
            Map.entry("backing.NbdReconnector", "the reconnect thread waits for a break and between attempts "
                    + "(backoff)"));

    private EngineRules() {
    }

    /** No wall clock, no sleep, no unseeded randomness in engine code. */
    static ArchRule noWallClockSleepOrUnseededRandomness() {
        return noClasses().that(engineClassesExcept(WALL_CLOCK_EXEMPT_CLASSES))
                .should().callCodeUnitWhere(WALL_CLOCK.or(SLEEP).or(UNSEEDED_RANDOM))
                .because("engine code gets time from the loop and randomness from a seeded Prng "
                        + "(docs/ARCHITECTURE.md §7)");
    }

    /** No blocking call in engine code. */
    static ArchRule noBlocking() {
        return noClasses().that(engineClassesExcept(BLOCKING_EXEMPT_CLASSES))
                .should().callCodeUnitWhere(BLOCKING)
                .because("engine code runs on the loop thread, which never blocks (docs/ARCHITECTURE.md §7)");
    }

    private static DescribedPredicate<JavaClass> engineClassesExcept(Map<String, String> exemptClasses) {
        return DescribedPredicate.describe("are engine classes", (JavaClass c) -> {
            JavaClass top = c;
            while (top.getEnclosingClass().isPresent()) {
                top = top.getEnclosingClass().get();
            }
            String name = top.getName();
            return name.startsWith(ProductionClasses.ROOT_PACKAGE + ".")
                    && EXEMPT_PACKAGES.stream().noneMatch(p -> c.getPackageName().equals(
                            ProductionClasses.ROOT_PACKAGE + "." + p))
                    && !exemptClasses.containsKey(name.substring(ProductionClasses.ROOT_PACKAGE.length() + 1));
        });
    }

    static final DescribedPredicate<JavaCall<?>> WALL_CLOCK = calls("the wall clock", call ->
            isCall(call, System.class, "currentTimeMillis", "nanoTime")
                    || call.getTargetOwner().getPackageName().equals("java.time") && isNamed(call, "now")
                    || isCall(call, java.time.Clock.class, "systemUTC", "systemDefaultZone", "system",
                            "tickMillis", "tickSeconds", "tickMinutes")
                    || isCall(call, java.time.InstantSource.class, "system")
                    || call.getTargetOwner().isEquivalentTo(java.util.Date.class) && isNamed(call, "<init>")
                            && call.getTarget().getRawParameterTypes().isEmpty());

    static final DescribedPredicate<JavaCall<?>> SLEEP = calls("a sleep", call ->
            isCall(call, Thread.class, "sleep", "onSpinWait")
                    || call.getTargetOwner().isAssignableTo(java.util.concurrent.TimeUnit.class)
                            && isNamed(call, "sleep"));

    static final DescribedPredicate<JavaCall<?>> UNSEEDED_RANDOM = calls("unseeded randomness", call ->
            call.getTargetOwner().isAssignableTo(Random.class) && isNamed(call, "<init>")
                    && call.getTarget().getRawParameterTypes().isEmpty()
                    || call.getTargetOwner().isAssignableTo(ThreadLocalRandom.class)
                    || call.getTargetOwner().isAssignableTo(SecureRandom.class)
                    || isCall(call, Math.class, "random")
                    || isCall(call, StrictMath.class, "random")
                    || isCall(call, java.util.UUID.class, "randomUUID"));

    static final DescribedPredicate<JavaCall<?>> BLOCKING = calls("a blocking call", call ->
            call.getTargetOwner().isAssignableTo(Future.class) && isNamed(call, "get", "join", "resultNow")
                    || isNamed(call, "wait") && call.getTargetOwner().isAssignableTo(Object.class)
                            && call.getTarget().getRawParameterTypes().size() <= 2
                            && call.getTarget().getRawParameterTypes().stream()
                                    .allMatch(t -> t.isEquivalentTo(long.class) || t.isEquivalentTo(int.class))
                    || call.getTargetOwner().isEquivalentTo(LockSupport.class) && call.getName().startsWith("park")
                    || isCall(call, Thread.class, "join", "sleep")
                    || call.getTargetOwner().isAssignableTo(CountDownLatch.class) && isNamed(call, "await")
                    || call.getTargetOwner().isAssignableTo(CyclicBarrier.class) && isNamed(call, "await")
                    || call.getTargetOwner().isAssignableTo(Condition.class) && call.getName().startsWith("await")
                    || call.getTargetOwner().isAssignableTo(Semaphore.class) && call.getName().startsWith("acquire")
                    || call.getTargetOwner().isAssignableTo(Lock.class) && isNamed(call, "lock", "lockInterruptibly")
                    || call.getTargetOwner().isAssignableTo(BlockingQueue.class) && isNamed(call, "take", "put")
                    || call.getTargetOwner().isAssignableTo(java.util.concurrent.ExecutorService.class)
                            && isNamed(call, "awaitTermination", "invokeAll", "invokeAny", "close"));

    private interface CallTest {
        boolean test(JavaCall<?> call);
    }

    private static DescribedPredicate<JavaCall<?>> calls(String description, CallTest test) {
        return DescribedPredicate.describe(description, test::test);
    }

    private static boolean isCall(JavaCall<?> call, Class<?> owner, String... names) {
        return call.getTargetOwner().isEquivalentTo(owner) && isNamed(call, names);
    }

    private static boolean isNamed(JavaCall<?> call, String... names) {
        for (String name : names) {
            if (call.getName().equals(name)) {
                return true;
            }
        }
        return false;
    }
}
