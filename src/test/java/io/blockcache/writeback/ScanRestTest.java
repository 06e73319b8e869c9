package io.blockcache.writeback;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.loop.Prng;
import org.junit.jupiter.api.Test;

/**
 * {@code rescan_delay_ms}: while the front end is busy and writeback is not behind its dirty target, a scan that went
 * through the whole index rests before it sweeps again (bcache's {@code writeback_delay}); idle, draining, holding
 * requests for older epochs or behind, it sweeps again at once.
 */
class ScanRestTest {
    private static final long MS = 1_000_000L;
    private static final long SECOND = 1_000 * MS;
    private static final int BLOCKS = 64; // a few dirty keys at a time: every sweep reaches the end of the index

    @Test
    void aBusyFrontEndGetsOneSweepOfTheIndexPerRescanDelayNotOnePerWrite() {
        // Proves the rest: 20 s of one 4 KiB write every 20 ms (never idle), writeback keeping up (its rate floor
        // far above the load) — with the default 1 s rest the index is swept about once a second, without it (0)
        // every other write or so (measured: 489), since every write re-arms it. All of it is written back in both
        // cases.
        assertThat(sweepsUnderLoad(1000, 10)).isBetween(15L, 25L);
        assertThat(sweepsUnderLoad(0, 10)).isGreaterThan(300L);
    }

    @Test
    void writebackBehindItsDirtyTargetDoesNotRest() {
        // Proves the rest waits for writeback to be at or below its dirty target: with the target at 0 % every
        // dirty sector is "behind", and the same load sweeps as often as with no rest at all (a full cache waiting
        // for space must not wait for a rest too; the quick full-cache experiment's worst write doubled without
        // this rule).
        assertThat(sweepsUnderLoad(1000, 0)).isGreaterThan(300L);
    }

    @Test
    void anIdleFrontEndSweepsAgainAtOnceWhateverTheRest() {
        // Proves the rest is only for a busy front end: with a 60 s rest, the writes of a busy second are all
        // written back within a second of the front end going idle (not after the rest).
        WritebackRig rig = rig(60_000);
        writeFor(rig, SECOND, new Prng(3));
        long quietFromNs = rig.loop.nowNs();
        rig.loop.runUntil(() -> rig.dirtySectors() == 0 || rig.loop.nowNs() > quietFromNs + 10 * SECOND);
        assertThat(rig.dirtySectors()).isZero();
        assertThat(rig.loop.nowNs() - quietFromNs).as("time to clean once idle").isLessThan(SECOND);
    }

    private static long sweepsUnderLoad(long rescanDelayMs, int dirtyTargetPercent) {
        WritebackRig rig = rig(rescanDelayMs);
        rig.tune(b -> b.percent(dirtyTargetPercent));
        long before = rig.writeback().counters().indexSweeps();
        writeFor(rig, 20 * SECOND, new Prng(42));
        long sweeps = rig.writeback().counters().indexSweeps() - before;
        assertThat(rig.writeback().frontEndIdle()).isFalse();
        long quietFromNs = rig.loop.nowNs();
        rig.loop.runUntil(() -> rig.dirtySectors() == 0 || rig.loop.nowNs() > quietFromNs + 10 * SECOND);
        assertThat(rig.dirtySectors()).as("everything written back in the end").isZero();
        return sweeps;
    }

    private static WritebackRig rig(long rescanDelayMs) {
        WritebackRig rig = new WritebackRig(256L << 20, 1L << 30);
        rig.tune(b -> b.rescanDelayNs(rescanDelayMs * MS).rateMinSectorsPerSecond(100_000));
        return rig;
    }

    /** One 4 KiB write every 20 ms (the front end never looks idle to a 100 ms sample) for {@code durationNs}. */
    private static void writeFor(WritebackRig rig, long durationNs, Prng prng) {
        long endNs = rig.loop.nowNs() + durationNs;
        while (rig.loop.nowNs() < endNs) {
            int block = prng.nextInt(BLOCKS);
            rig.write((long) block * 4096, WritebackRig.pattern(block, 4096));
            rig.loop.runFor(20 * MS);
        }
    }
}
