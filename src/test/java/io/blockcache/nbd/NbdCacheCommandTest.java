package io.blockcache.nbd;

import static io.blockcache.nbd.NbdProtocol.CMD_CACHE;
import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.volume.Volume;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** NBD_CMD_CACHE as a warm-up: what one command puts in the cache. */
class NbdCacheCommandTest {
    private static final int MIB = 1 << 20;
    private NbdFixture fixture;

    @BeforeEach
    void setUp() throws Exception {
        fixture = new NbdFixture();
    }

    @AfterEach
    void tearDown() throws Exception {
        fixture.close();
    }

    @Test
    void aCacheCommandOfTwelveMibFillsTwelveMib() throws Exception {
        // Proves CMD_CACHE warms the whole range with the sequential cutoff on (4 MiB by default): 12 MiB asked,
        // 12 MiB filled, and reading it back is all hits. Before 2026-12-07 it read through the volume and the cutoff
        // left all but about 3 MiB unfilled.
        Volume volume = fixture.cacheSet.volume("default");
        long cutoffBytes = fixture.onLoop(done -> done.accept(volume.bypassSettings().sequentialCutoffBytes()));
        assertThat(cutoffBytes).as("the sequential cutoff is on").isPositive().isLessThan(12L * MIB);
        long filledBefore = volume.stats().fillSectors();
        try (NbdTestClient client = fixture.client().go("default", false)) {
            assertThat(client.call(0, CMD_CACHE, MIB, 12L * MIB, null).error()).isZero();
            assertThat((volume.stats().fillSectors() - filledBefore) * 512).isEqualTo(12L * MIB);
            long hits = volume.stats().readHitSectors();
            long misses = volume.stats().readMissSectors();
            for (int i = 0; i < 12; i++) {
                assertThat(client.read(MIB + (long) i * MIB, MIB)).hasSize(MIB);
            }
            assertThat((volume.stats().readHitSectors() - hits) * 512).isEqualTo(12L * MIB);
            assertThat(volume.stats().readMissSectors() - misses).isZero();
        }
    }
}
