package io.blockcache.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.cache.BlockChecksums;
import io.blockcache.device.DeviceOp;
import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import io.blockcache.index.ExtentLocation;
import io.blockcache.index.LookupVisitor;
import io.blockcache.volume.Volume;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Per-4 KiB block CRCs across an open (docs/FORMAT.md §9): the CRCs of dirty data come back from the journal after a
 * crash, and from the checkpoint after a clean stop or when the journal records are older than the checkpoint; so the
 * first 4 KiB read inside a large extent after an open reads one block, and damage in any block is still caught.
 */
class BlockCrcRecoveryTest {
    private static final int EXTENT_BYTES = 64 << 10;
    private static final long OFFSET = 1 << 20;

    private final SimCacheSet sim = new SimCacheSet();
    private CacheSet set;
    private final byte[] data = SimCacheSet.pattern(9, EXTENT_BYTES);

    @BeforeEach
    void writeA64KiBExtentAndKeepItDirty() {
        sim.format(1);
        set = sim.openOk();
        set.knobs().find("writeback." + SimCacheSet.EXPORT + ".running").set("false"); // keep the data dirty
        sim.writeOk(volume(), OFFSET, data);
        sim.flushOk(volume());
    }

    private Volume volume() {
        return set.volume(SimCacheSet.EXPORT);
    }

    /** The cache location of the extent's first sector. */
    private long location() {
        long[] found = {-1};
        volume().index().lookup(OFFSET / 512, 8, new LookupVisitor() {
            @Override
            public void hole(long start, int length) {
                throw new AssertionError("not cached");
            }

            @Override
            public void extent(long start, int length, long location, int crc32c, int crcOffset, int crcLength) {
                found[0] = location;
            }
        });
        return found[0];
    }

    private boolean blockCrcsKnown() {
        long location = location();
        return set.space().allocator().blockChecksums().covers(ExtentLocation.bucket(location),
                ExtentLocation.offsetInBucketSectors(location), EXTENT_BYTES / 512);
    }

    /** Reads the 4 KiB block {@code block} of the extent; returns the cache sectors the read took. */
    private long readBlock(int block) {
        long before = sim.cache.counters().completedSectors(DeviceOp.READ);
        assertThat(sim.readOk(volume(), OFFSET + block * 4096L, 4096))
                .isEqualTo(Arrays.copyOfRange(data, block * 4096, block * 4096 + 4096));
        return sim.cache.counters().completedSectors(DeviceOp.READ) - before;
    }

    private void reopenAfterACrash() {
        sim.crash();
        set = sim.openOk();
    }

    @Test
    void afterACrashTheJournalGivesBackTheBlockCrcsOfDirtyData() {
        assertThat(blockCrcsKnown()).isTrue();
        reopenAfterACrash();
        assertThat(blockCrcsKnown()).as("replayed from the journal").isTrue();
        assertThat(readBlock(5)).isEqualTo(BlockChecksums.BLOCK_SECTORS);
    }

    @Test
    void aCheckpointCarriesTheBlockCrcsWhenTheirRecordsAreNotReplayed() {
        // A checkpoint after the write: the replay starts at its start sequence, past the write's records, so the
        // CRCs can only come from the checkpoint's block CRC runs; a crash, then a clean stop, both keep them.
        assertThat(sim.<IoResult>await(done -> set.checkpoint(done::accept))).isEqualTo(IoResult.OK);
        reopenAfterACrash();
        assertThat(blockCrcsKnown()).as("from the checkpoint, after a crash").isTrue();
        assertThat(sim.<IoResult>await(done -> set.shutdown(done::accept))).isEqualTo(IoResult.OK);
        set = sim.openOk();
        assertThat(blockCrcsKnown()).as("from the checkpoint, after a clean stop").isTrue();
        assertThat(readBlock(15)).isEqualTo(BlockChecksums.BLOCK_SECTORS);
    }

    @Test
    void damageFoundAfterAnOpenFailsTheReadOfThatBlockOnly() {
        reopenAfterACrash();
        long location = location();
        long blockAt = set.superblock().bucketOffsetBytes(ExtentLocation.bucket(location))
                + ExtentLocation.offsetInBucketSectors(location) * 512L + 3 * 4096L + 100;
        sim.flipByte(sim.cache, blockAt);
        ByteBuffer buffer = ByteBuffer.allocate(4096);
        IoResult damaged = sim.io(cb -> volume().read(OFFSET + 3 * 4096L, buffer, cb));
        assertThat(damaged.status()).isEqualTo(IoStatus.IO_ERROR);
        assertThat(damaged.message()).contains("CRC32C");
        assertThat(readBlock(2)).isEqualTo(BlockChecksums.BLOCK_SECTORS);
    }

    @Test
    void checkDataVerifiesEveryBlockCrcAndNamesTheDamagedBlock() {
        // Proves check --data (CacheInspector) replays the block CRCs and checks each block of a live span against
        // its own: 16 blocks of the 64 KiB extent, no mismatch; after a flipped byte in block 3, a span mismatch and a
        // block mismatch naming that block's sectors.
        sim.crash();
        CacheReport healthy = sim.await(done -> CacheInspector.inspect(sim.cache, true, done));
        assertThat(healthy.data().blockCrcsChecked()).isEqualTo(16);
        assertThat(healthy.data().mismatches()).isEmpty();
        set = sim.openOk();
        long location = location();
        int offset = ExtentLocation.offsetInBucketSectors(location);
        sim.flipByte(sim.cache, set.superblock().bucketOffsetBytes(ExtentLocation.bucket(location))
                + offset * 512L + 3 * 4096L + 100);
        sim.crash();
        CacheReport damaged = sim.await(done -> CacheInspector.inspect(sim.cache, true, done));
        assertThat(damaged.data().mismatches()).extracting(CacheReport.CrcMismatch::crcOffsetInBucketSectors,
                CacheReport.CrcMismatch::crcLengthSectors).containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple(offset, EXTENT_BYTES / 512),
                        org.assertj.core.groups.Tuple.tuple(offset + 24, 8));
        assertThat(damaged.problems()).anySatisfy(problem -> assertThat(problem).contains("block CRC32C mismatch"));
    }
}
