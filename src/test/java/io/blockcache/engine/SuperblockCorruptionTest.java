package io.blockcache.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.format.CacheSuperblock;
import io.blockcache.format.DecodeResult;
import io.blockcache.volume.Volume;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Recovery from a damaged superblock copy, and refusal when both copies are damaged (FORMAT.md §3). */
class SuperblockCorruptionTest {
    private static final long COPY_A = 0;
    private static final long COPY_B = CacheSuperblock.BYTES;
    /** A byte inside the cache-set UUID: decodes as far as the CRC check. */
    private static final int UUID_BYTE = 25;

    private final SimCacheSet sim = new SimCacheSet();
    private final byte[] data = SimCacheSet.pattern(3, 64 << 10);
    private long sequenceBefore;

    @BeforeEach
    void formatWriteFlushAndCrash() {
        sim.format(1);
        Volume volume = sim.openOk().volume(SimCacheSet.EXPORT);
        sim.writeOk(volume, 128 << 10, data);
        sim.flushOk(volume);
        sim.crash();
        sequenceBefore = sim.superblockCopy(COPY_A).value().sequence();
        assertThat(sim.superblockCopy(COPY_B).value().sequence()).isEqualTo(sequenceBefore);
    }

    @Test
    void damagedCopyAIsRepairedFromCopyB() {
        // Proves open survives a damaged copy A: it uses B, the data is intact, and both copies are valid again.
        sim.flipByte(sim.cache, COPY_A + UUID_BYTE);
        assertThat(sim.superblockCopy(COPY_A).isOk()).as("copy A damaged").isFalse();
        openAndCheckRepaired();
    }

    @Test
    void damagedCopyBIsRepairedFromCopyA() {
        // Proves the same for copy B.
        sim.flipByte(sim.cache, COPY_B + UUID_BYTE);
        assertThat(sim.superblockCopy(COPY_B).isOk()).as("copy B damaged").isFalse();
        openAndCheckRepaired();
    }

    private void openAndCheckRepaired() {
        CacheSet set = sim.openOk();
        assertThat(sim.readOk(set.volume(SimCacheSet.EXPORT), 128 << 10, data.length)).isEqualTo(data);
        DecodeResult<CacheSuperblock> a = sim.superblockCopy(COPY_A);
        DecodeResult<CacheSuperblock> b = sim.superblockCopy(COPY_B);
        assertThat(a.isOk()).as("copy A valid after open").isTrue();
        assertThat(b.isOk()).as("copy B valid after open").isTrue();
        assertThat(a.value().sequence()).as("repair is a rewrite with a new sequence").isGreaterThan(sequenceBefore)
                .isEqualTo(b.value().sequence());
        assertThat(a.value()).isEqualTo(b.value());
        assertThat(a.value().cacheSetUuid()).isEqualTo(set.superblock().cacheSetUuid());
    }

    @Test
    void bothCopiesDamagedIsRefusedNamingEachProblem() {
        // Proves open refuses when neither copy is valid, and says what is wrong with each, at which byte.
        sim.flipByte(sim.cache, COPY_A); // magic
        sim.flipByte(sim.cache, COPY_B + UUID_BYTE); // CRC
        Outcome<CacheSet> opened = sim.open();
        assertThat(opened.isOk()).isFalse();
        assertThat(opened.error())
                .contains("no valid blockcache superblock")
                .contains("copy A at byte 0: BAD_MAGIC")
                .contains("copy B at byte 4096: BAD_CRC");
    }
}
