package io.blockcache.writeback;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.loop.Prng;
import io.blockcache.volume.BypassSettings;
import org.junit.jupiter.api.Test;

/**
 * The fragmentation boost counts buckets in use as bcache's {@code gc_stats.in_use} does: buckets holding dirty
 * data. Clean buckets are reclaimable and do not count.
 */
class FragmentBoostTest {
    private static final long MS = 1_000_000L;
    private static final long SECOND = 1_000 * MS;
    private static final int MIB = 1 << 20;

    @Test
    void aCacheFullOfCleanDataDoesNotBoostTheRateForALittleDirtyData() {
        // Proves it: 70 % of a 64 MiB cache holds clean read-miss fills and a busy front end keeps ~1 MiB dirty,
        // far below the 10 % target. Counting every bucket that is not free as in use (as before) put "in use" at
        // 70 %+ with a fragment over 3, and the boost wrote everything back at once; counting the buckets that
        // hold dirty data puts it near 2 %, and the rate stays the controller's.
        WritebackRig rig = new WritebackRig(64L * MIB, 1L << 30);
        rig.volume().setBypassSettings(BypassSettings.off());
        for (int i = 0; i < 45; i++) {
            rig.read((long) i * MIB, MIB); // clean fills
        }
        rig.loop.runFor(SECOND);
        assertThat(rig.dirtySectors()).isZero();
        Prng prng = new Prng(5);
        long endNs = rig.loop.nowNs() + 12 * SECOND; // two rate updates (every 5 s)
        long boostSeen = 0;
        while (rig.loop.nowNs() < endNs) {
            int block = 20_000 + prng.nextInt(256);
            rig.write((long) block * 4096, WritebackRig.pattern(block, 4096));
            rig.loop.runFor(20 * MS);
            boostSeen = Math.max(boostSeen, rig.writeback().rateTerms().fragmentBoost());
        }
        assertThat(rig.writeback().rateTerms().dirtySectors()).as("the rate saw dirty data").isPositive();
        assertThat(rig.volume().cacheInUsePercent()).isLessThan(10);
        assertThat(boostSeen).isZero();
    }
}
