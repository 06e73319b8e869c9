package io.blockcache.writeback;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.device.IoResult;
import io.blockcache.loop.Prng;
import io.blockcache.volume.DamageMapStats;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * What the damage map costs a front-end write in simulated time (docs/BENCHMARKS.md "Damage map"): SSD cache, HDD
 * backing (volatile write cache on), writeback off, one 4 KiB write at a time at random 4 KiB offsets of a 256 MiB
 * volume (256 regions of 1 MiB).
 */
class DamageMapCostTest {
    private static final int WRITES = 2000;

    @Test
    void onlyTheFirstWriteIntoARegionPaysAMapWriteAndTheRestCostWhatTheyCostBefore() {
        // Proves the cost is one map write per newly dirtied region: 2,000 writes over 256 regions make exactly as
        // many map writes as regions they touched, and a write into a marked region is as fast as the cache write.
        WritebackRig rig = new WritebackRig(64L << 20, 257L << 20);
        rig.tune(b -> b.running(false));
        DamageMapStats stats = rig.volume().damageMap().stats();
        long writesBefore = stats.blockWrites.get();
        Prng prng = new Prng(5);
        boolean[] marked = new boolean[256];
        long firstNs = 0;
        long laterNs = 0;
        int first = 0;
        long laterMaxNs = 0;
        for (int i = 0; i < WRITES; i++) {
            long offset = 4096L * prng.nextInt(65_536);
            int region = (int) (offset >> 20);
            long startNs = rig.loop.nowNs();
            IoResult result = rig.await(cb -> rig.volume().write(offset, ByteBuffer.allocate(4096), false, cb));
            assertThat(result).isEqualTo(IoResult.OK);
            long tookNs = rig.loop.nowNs() - startNs;
            if (!marked[region]) {
                marked[region] = true;
                first++;
                firstNs += tookNs;
            } else {
                laterNs += tookNs;
                laterMaxNs = Math.max(laterMaxNs, tookNs);
            }
        }
        assertThat(stats.blockWrites.get() - writesBefore).isEqualTo(first);
        assertThat(stats.regionsMarked.get()).isEqualTo(first);
        assertThat(stats.writesCovered.get()).isEqualTo(WRITES - first);
        double firstMeanUs = firstNs / 1000.0 / first;
        double laterMeanUs = laterNs / 1000.0 / (WRITES - first);
        System.out.printf("damage map cost: %d writes, %d first into their region: mean %.0f us; the other %d:"
                + " mean %.0f us, max %.0f us; map writes %d%n", WRITES, first, firstMeanUs, WRITES - first,
                laterMeanUs, laterMaxNs / 1000.0, stats.blockWrites.get() - writesBefore);
        assertThat(laterMaxNs).as("a write into a marked region waits for no backing I/O").isLessThan(1_000_000);
        assertThat(firstMeanUs).as("a first write waits for one HDD FUA write").isGreaterThan(1_000);
    }
}
