package io.blockcache.writeback;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Drain jobs (docs/WRITEBACK.md, "Drain jobs") in simulated time on the SSD/HDD models. */
class DrainJobTest {
    private static final long MS = 1_000_000L;
    private static final long SECOND = 1_000 * MS;
    private static final int DIRTY_BYTES = 12 << 20;
    private static final long MIB = 1 << 20;

    /** A rig with 12 MiB dirty in 256 KiB writes and writeback paused, so that only drains write back. */
    private static WritebackRig dirtyRig() {
        WritebackRig rig = new WritebackRig(64L << 20, 1L << 30);
        rig.tune(b -> b.running(false));
        for (int i = 0; i < DIRTY_BYTES / (256 << 10); i++) {
            rig.write((long) i * (512 << 10), WritebackRig.pattern(i, 256 << 10));
        }
        assertThat(rig.dirtySectors() * 512).isEqualTo(DIRTY_BYTES);
        return rig;
    }

    private static IoResult[] start(WritebackRig rig, DrainLimits limits, List<DrainProgress> reports) {
        IoResult[] result = new IoResult[1];
        rig.writeback().drain(limits, reports::add, r -> result[0] = r);
        return result;
    }

    private static void settle(WritebackRig rig) {
        assertThat(rig.loop.runUntil(() -> rig.writeback().keysInFlight() == 0)).isTrue();
    }

    @Test
    void aCappedDrainWritesBackAtTheCapAndFinishes() {
        // Proves the cap holds through the pacer: 1 MiB/s measured over 8 s of backing writes is within 10 %, and
        // the drain still ends clean and durable.
        WritebackRig rig = dirtyRig();
        IoResult[] result = start(rig, DrainLimits.ofBytes(MIB, DrainLimits.NO_DEADLINE), new ArrayList<>());
        rig.loop.runFor(2 * SECOND); // past the pacer's 2 s of allowed lag, which may start with a burst
        long before = rig.writeback().counters().backingWriteSectors();
        rig.loop.runFor(8 * SECOND);
        double bytesPerSecond = (rig.writeback().counters().backingWriteSectors() - before) * 512 / 8.0;
        assertThat(bytesPerSecond).isBetween(0.9 * MIB, 1.1 * MIB);
        assertThat(rig.loop.runUntil(() -> result[0] != null)).isTrue();
        assertThat(result[0]).isEqualTo(IoResult.OK);
        assertThat(rig.dirtySectors()).isZero();
        assertThat(rig.writeback().drainJob().state()).isEqualTo(DrainState.DONE);
    }

    @Test
    void aDeadlineBeyondTheMeasuredBandwidthIsRefusedWithTheRateItNeeds() {
        // Proves the refusal: 12 MiB in 0.5 s needs 25165824 B/s, above the backing device's 20 MB/s (the governor's
        // first guess, nothing measured yet); nothing starts. A deadline above the drain's own cap is refused too.
        WritebackRig rig = dirtyRig();
        double shown = rig.writeback().measuredBackingBytesPerSecond();
        assertThat(shown).isEqualTo(20e6);
        long now = rig.loop.nowNs();
        assertThatThrownBy(() -> start(rig, new DrainLimits(0, now + 500 * MS), new ArrayList<>()))
                .isInstanceOfSatisfying(DrainRefused.class, refused -> {
                    assertThat(refused.neededBytesPerSecond()).isEqualTo(DIRTY_BYTES / 0.5);
                    assertThat(refused.availableBytesPerSecond()).isEqualTo(shown);
                    assertThat(refused.getMessage()).isEqualTo("deadline cannot be met: 12.0 MiB dirty in 0.5 s needs"
                            + " 24.0 MiB/s, more than the 19.1 MiB/s the backing device has shown it can write");
                });
        assertThatThrownBy(() -> start(rig, DrainLimits.ofBytes(512 << 10, now + 10 * SECOND), new ArrayList<>()))
                .isInstanceOf(DrainRefused.class).hasMessageEndingWith("needs 1.2 MiB/s, more than the drain's rate"
                        + " cap of 0.5 MiB/s");
        assertThat(rig.writeback().drainJob()).isNull();
        rig.loop.runFor(2 * SECOND);
        assertThat(rig.dirtySectors() * 512).isEqualTo(DIRTY_BYTES);
    }

    @Test
    void aDeadlineDrainPacesItselfToFinishJustBeforeTheDeadline() {
        // Proves a deadline sets the rate: 12 MiB by 20 s is paced at dirty / time left × 1.2, so it is not done at
        // 10 s (full speed takes well under a second on this disk) and is done before 20 s.
        WritebackRig rig = dirtyRig();
        long deadline = rig.loop.nowNs() + 20 * SECOND;
        List<DrainProgress> reports = new ArrayList<>();
        IoResult[] result = start(rig, new DrainLimits(0, deadline), reports);
        rig.loop.runFor(10 * SECOND);
        assertThat(result[0]).isNull();
        assertThat(rig.dirtySectors()).isPositive();
        DrainProgress mid = reports.get(reports.size() - 1);
        assertThat(mid.neededBytesPerSecond()).isPositive();
        assertThat(mid.rateCeilingBytesPerSecond()).isGreaterThan((long) mid.neededBytesPerSecond());
        assertThat(mid.deadlineWarning()).isNull();
        assertThat(rig.loop.runUntil(() -> result[0] != null)).isTrue();
        assertThat(result[0]).isEqualTo(IoResult.OK);
        assertThat(rig.loop.nowNs()).isLessThan(deadline);
    }

    @Test
    void pauseHoldsProgressAndResumeFinishes() {
        // Proves pause holds every pass: once the passes in flight settle, nothing more is written for 5 s and the
        // ETA is unknown; resume reports the running job with its cap at once and lets the drain finish clean.
        WritebackRig rig = dirtyRig();
        List<DrainProgress> reports = new ArrayList<>();
        IoResult[] result = start(rig, DrainLimits.ofBytes(MIB, DrainLimits.NO_DEADLINE), reports);
        rig.loop.runFor(3 * SECOND);
        rig.writeback().pauseDrain();
        rig.writeback().pauseDrain(); // idempotent
        settle(rig);
        long dirty = rig.dirtySectors();
        long written = rig.writeback().counters().backingWriteSectors();
        assertThat(dirty).isPositive();
        rig.loop.runFor(5 * SECOND);
        assertThat(rig.dirtySectors()).isEqualTo(dirty);
        assertThat(rig.writeback().counters().backingWriteSectors()).isEqualTo(written);
        DrainProgress paused = reports.get(reports.size() - 1);
        assertThat(paused.state()).isEqualTo(DrainState.PAUSED);
        assertThat(paused.etaNs()).isEqualTo(-1);
        assertThat(result[0]).isNull();
        rig.writeback().resumeDrain();
        DrainProgress resumed = reports.get(reports.size() - 1);
        assertThat(resumed.state()).as("reported at once, not at the next periodic report")
                .isEqualTo(DrainState.RUNNING);
        assertThat(resumed.rateCeilingBytesPerSecond()).isEqualTo(MIB);
        assertThat(rig.loop.runUntil(() -> result[0] != null)).isTrue();
        assertThat(result[0]).isEqualTo(IoResult.OK);
        assertThat(rig.dirtySectors()).isZero();
    }

    @Test
    void cancelLeavesDirtyDataDirtyAndWritebackBackToItsKnobs() {
        // Proves cancel: the caller hears why, what was dirty stays dirty while the knob keeps writeback paused,
        // and once the knob lets writeback run, the normal idle policy (no cap) cleans the rest far faster than the
        // cancelled drain's 1 MiB/s would have.
        WritebackRig rig = dirtyRig();
        IoResult[] result = start(rig, DrainLimits.ofBytes(MIB, DrainLimits.NO_DEADLINE), new ArrayList<>());
        rig.loop.runFor(3 * SECOND);
        rig.writeback().cancelDrain();
        assertThat(rig.loop.runUntil(() -> result[0] != null)).isTrue();
        assertThat(result[0].status()).isEqualTo(IoStatus.CLOSED);
        assertThat(result[0].message()).startsWith("drain cancelled; ").endsWith(" dirty bytes stay in the cache");
        assertThat(rig.writeback().drainJob().state()).isEqualTo(DrainState.CANCELLED);
        assertThatThrownBy(() -> rig.writeback().resumeDrain()).isInstanceOf(DrainConflict.class)
                .hasMessage("no drain of this volume to resume (the last one is cancelled)");
        settle(rig);
        long dirty = rig.dirtySectors();
        assertThat(dirty * 512).isGreaterThan(4 * MIB);
        rig.loop.runFor(5 * SECOND);
        assertThat(rig.dirtySectors()).isEqualTo(dirty);
        rig.tune(b -> b.running(true));
        rig.loop.runFor(2 * SECOND);
        assertThat(rig.dirtySectors()).isZero();
    }

    @Test
    void aDeadlineRateIsDirtyOverTimeLeftWithTheMarginUnderTheCap() {
        // Proves the ceiling arithmetic by hand: 1,000,000 sectors with 100 s left → 12,000 sectors/s; a cap of
        // 10,000 wins; past the deadline only the cap is left; with no limits, none.
        DrainJob deadline = new DrainJob(new DrainLimits(0, 100 * SECOND), p -> { }, r -> { }, 0, 0);
        assertThat(deadline.ceilingSectorsPerSecond(1_000_000, 0)).isEqualTo(12_000);
        assertThat(deadline.ceilingSectorsPerSecond(1, 0)).isEqualTo(DrainJob.DEADLINE_RATE_MIN_SECTORS_PER_SECOND);
        DrainJob capped = new DrainJob(new DrainLimits(10_000, 100 * SECOND), p -> { }, r -> { }, 0, 0);
        assertThat(capped.ceilingSectorsPerSecond(1_000_000, 0)).isEqualTo(10_000);
        assertThat(capped.ceilingSectorsPerSecond(1_000_000, 100 * SECOND)).isEqualTo(10_000);
        assertThat(new DrainJob(DrainLimits.NONE, p -> { }, r -> { }, 0, 0).ceilingSectorsPerSecond(5, 0)).isZero();
    }

    @Test
    void aFinishingDrainRefusesPauseAndCancelByNameAndTakesResumeAsANoOp() {
        // Proves what an operator meets in the moment between "nothing left to write back" and "clean markings
        // committed": the job still reads running, pause and cancel are refused saying it is finishing (they said
        // "no drain to pause (the last one is running)" before, and resume threw although it is idempotent: found by
        // the fuzz), resume does nothing, and the job ends DONE.
        WritebackRig rig = dirtyRig();
        IoResult[] result = start(rig, DrainLimits.NONE, new ArrayList<>());
        DrainJob job = rig.writeback().drainJob();
        assertThat(rig.loop.runUntil(job::finishing)).isTrue();
        assertThat(job.state()).isEqualTo(DrainState.RUNNING);
        assertThatThrownBy(() -> rig.writeback().pauseDrain()).isInstanceOf(DrainConflict.class)
                .hasMessage("no drain of this volume to pause (the last one is finishing)");
        assertThatThrownBy(() -> rig.writeback().cancelDrain()).isInstanceOf(DrainConflict.class)
                .hasMessage("no drain of this volume to cancel (the last one is finishing)");
        rig.writeback().resumeDrain();
        assertThat(rig.loop.runUntil(() -> result[0] != null)).isTrue();
        assertThat(result[0]).isEqualTo(IoResult.OK);
        assertThat(job.state()).isEqualTo(DrainState.DONE);
        assertThat(job.finishing()).isFalse();
    }
}
