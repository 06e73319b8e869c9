package io.blockcache.fuzz;

import org.junit.jupiter.api.Test;

/**
 * Issue 9: every bug the fuzz found, replayed from seeds that fail without its fix (checked by disabling each
 * fix and searching seeds, docs/TESTING.md "Bugs the fuzz found"). A seed names a scenario only for the
 * generator it was found with: whoever changes what {@code FuzzSetup} or {@code FuzzScenario} draw must find
 * the seeds again the same way. Each test fails with the seed, the setup, the trace and the replay command.
 */
class FuzzRegressionTest {
    @Test
    void cleanCopiesAreNotTrustedAfterAnUncleanStop() {
        // Proves the fix for stale clean copies after a power cut (FORMAT.md §7 rule 10), in every mode.
        FuzzScenario.run(1);
        FuzzScenario.run(3);
    }

    @Test
    void theShutdownCheckpointStartsAfterTheLastChange() {
        // Proves a clean shutdown no longer joins a checkpoint begun before later write-through copies.
        FuzzScenario.run(53);
    }

    @Test
    void readsWaitForAnOverlappingAroundCacheWrite() {
        // Proves a read never returns data older than an acknowledged write hidden by an around-cache write.
        FuzzScenario.run(59);
    }

    @Test
    void aWritePartlySupersededByAnAroundCacheWriteIsAcknowledgedOnlyOnceThatLanded() {
        // Proves a cached write that a newer around-cache write claimed part of is acknowledged only after that
        // write ended, so FUA (seed 156) and a later FLUSH (seed 2209) make the newer data durable.
        FuzzScenario.run(156);
        FuzzScenario.run(2209);
    }

    @Test
    void backingFlushErrorsStick() {
        // Proves a flush error reported to writeback only still fails the client's later FLUSH.
        FuzzScenario.run(15);
        FuzzScenario.run(21);
        FuzzScenario.run(25);
    }

    @Test
    void aFailedBackingDeviceDoesNotStopCheckpoints() {
        // Proves FLUSH/FUA do not hang once a backing flush failed: checkpoints no longer wait for the backing.
        FuzzScenario.run(314);
    }

    @Test
    void aDrainEndsWithTheWritebackError() {
        // Proves a drain on a backing device whose flushes fail ends with the error instead of retrying forever.
        FuzzScenario.run(367);
    }

    @Test
    void writeThroughKeepsNoCopyOfAWriteTheBackingDeviceRefused() {
        // Proves the clean copy of a write-through write is installed only after its backing write succeeded.
        FuzzScenario.run(443);
    }

    @Test
    void aCheckpointNeverStartsInsideAJournalAppend() {
        // Proves a flushed dirty write survives a checkpoint triggered by journal pressure during its insert.
        FuzzScenario.run(954);
    }
}
