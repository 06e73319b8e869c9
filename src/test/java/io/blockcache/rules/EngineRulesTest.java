package io.blockcache.rules;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The engine rules of docs/ARCHITECTURE.md §7, checked on the production classes and shown to fail on a fixture. */
class EngineRulesTest {
    @Test
    void engineCodeReadsNoWallClockSleepsNotAndDrawsOnlySeededRandomNumbers() {
        // Proves no engine class calls System.nanoTime/currentTimeMillis, java.time's now, sleeps or new Random().
        EngineRules.noWallClockSleepOrUnseededRandomness().check(ProductionClasses.get());
    }

    @Test
    void engineCodeNeverBlocks() {
        // Proves no engine class waits on a future, a monitor, a latch, a lock, a queue or LockSupport.
        EngineRules.noBlocking().check(ProductionClasses.get());
    }

    @Test
    void theRulesReportEveryKindOfViolation() throws ClassNotFoundException {
        // Proves the rules can fail: each forbidden call of a fixture in an engine package is reported once.
        JavaClasses fixture = new ClassFileImporter()
                .importClasses(Class.forName("io.blockcache.volume.EngineRuleViolationsFixture"));

        List<String> clockSleepRandom = EngineRules.noWallClockSleepOrUnseededRandomness().evaluate(fixture)
                .getFailureReport().getDetails();
        assertThat(clockSleepRandom).hasSize(9);
        assertThat(String.join("\n", clockSleepRandom)).contains(
                "System.currentTimeMillis()", "System.nanoTime()", "Instant.now()", "Clock.systemUTC()",
                "Thread.sleep(long)", "Random.<init>()", "ThreadLocalRandom.current()", "Math.random()");
        assertThat(clockSleepRandom).noneMatch(line -> line.contains("Random.<init>(long)"));

        List<String> blocking = EngineRules.noBlocking().evaluate(fixture).getFailureReport().getDetails();
        assertThat(String.join("\n", blocking)).contains(
                "Object.wait(long)", "LockSupport.parkNanos(long)", "CompletableFuture.get()",
                "CompletableFuture.join()", "Thread.sleep(long)");
        assertThat(blocking).hasSize(5);
    }
}
