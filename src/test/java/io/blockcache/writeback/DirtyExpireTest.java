package io.blockcache.writeback;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.device.IoResult;
import io.blockcache.index.ExtentLocation;
import io.blockcache.loop.Prng;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class DirtyExpireTest {
    private static final long MS = 1_000_000L;
    private static final long SECOND = 1_000 * MS;
    private static final int BLOCKS = 1024; // 4 MiB of 4 KiB blocks, far below the 10 % dirty target

    @Test
    void underConstantLoadNothingStaysDirtyLongerThanExpirePlusOneRateUpdate() {
        // Proves dirty_expire: with the PI rate at its 8 sectors/s floor and the front end never idle, every
        // dirty block is written back within dirty_expire + one rate-update period (30 s + 5 s).
        WritebackRig rig = new WritebackRig(256L << 20, 1L << 30);
        Prng prng = new Prng(42);
        long[] writtenNs = new long[BLOCKS];
        long limitNs = rig.writeback().settings().dirtyExpireNs() + rig.writeback().settings().rateUpdateNs();
        long endNs = rig.loop.nowNs() + 100 * SECOND;
        long nextCheckNs = rig.loop.nowNs() + SECOND;
        long worstNs = 0;
        while (rig.loop.nowNs() < endNs) {
            int block = prng.nextInt(BLOCKS);
            IoResult[] out = new IoResult[1];
            rig.volume().write((long) block * 4096, ByteBuffer.wrap(WritebackRig.pattern(block, 4096)), false,
                    r -> out[0] = r);
            rig.loop.runUntil(() -> out[0] != null);
            writtenNs[block] = rig.loop.nowNs();
            rig.loop.runFor(20 * MS); // 50 writes per second: never idle for a 100 ms sample
            if (rig.loop.nowNs() >= nextCheckNs) {
                nextCheckNs += SECOND;
                long nowNs = rig.loop.nowNs();
                long[] oldest = {0};
                rig.volume().index().extents().scan(0, ExtentLocation::dirty, Integer.MAX_VALUE, Integer.MAX_VALUE,
                        (start, length, location, crc, crcOffset, crcLength) -> {
                            for (long b = start / 8; b < (start + length + 7) / 8; b++) {
                                oldest[0] = Math.max(oldest[0], nowNs - writtenNs[(int) b]);
                            }
                        });
                worstNs = Math.max(worstNs, oldest[0]);
                assertThat(oldest[0]).as("oldest dirty block at t=%d s", nowNs / SECOND).isLessThanOrEqualTo(limitNs);
            }
        }
        assertThat(rig.writeback().frontEndIdle()).isFalse();
        assertThat(rig.writeback().counters().expiredKeysTaken()).isPositive();
        assertThat(rig.writeback().rateTerms().rateSectorsPerSecond()).isEqualTo(8);
        assertThat(worstNs).as("the bound was approached, so the test could fail").isGreaterThan(25 * SECOND);
    }
}
