package io.blockcache.volume;

import static io.blockcache.volume.VolumeFixture.pattern;
import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.device.DeviceOp;
import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import io.blockcache.device.MemoryDevice;
import io.blockcache.index.ExtentLocation;
import io.blockcache.index.LookupVisitor;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Reads of part of a larger checksummed span with per-4 KiB block CRCs (docs/FORMAT.md §9): a read inside a span
 * reads and verifies only the blocks it touches, every time; without block CRCs (after an open) the first read
 * verifies the span and teaches the blocks; damage is caught by every read that returns it, and by writeback.
 */
class BlockCrcReadTest {
    private static final long VOLUME_BYTES = 64L << 20;

    private static long cacheReadSectors(VolumeFixture f) {
        return f.cacheDevice.counters().completedSectors(DeviceOp.READ);
    }

    private static void forgetBlockCrcs(VolumeFixture f, long offset) {
        f.space.allocator().blockChecksums().forget(ExtentLocation.bucket(f.locationOf(offset)));
    }

    private static long cacheOffsetOf(VolumeFixture f, long offset) {
        long location = f.locationOf(offset);
        return f.layout.byteOffset(ExtentLocation.bucket(location), ExtentLocation.offsetInBucketSectors(location));
    }

    @Test
    void every4KiBReadOfA32KiBWriteReadsOnlyItsOwnBlock() {
        // Proves the write fills the block CRCs: each 4 KiB read inside a 32 KiB write (one extent: the fixture cuts
        // at 32 KiB) reads 8 sectors from the cache, the first one too, and the data is right.
        VolumeFixture f = new VolumeFixture(16, VOLUME_BYTES, CacheMode.WRITEBACK);
        byte[] data = pattern(3, 32 << 10);
        assertThat(f.write(1 << 20, data, false)).isEqualTo(IoResult.OK);
        for (int block = 0; block < 8; block++) {
            long sectors = cacheReadSectors(f);
            assertThat(f.read((1 << 20) + block * 4096L, 4096))
                    .isEqualTo(Arrays.copyOfRange(data, block * 4096, block * 4096 + 4096));
            assertThat(cacheReadSectors(f) - sectors).as("block %d", block).isEqualTo(8);
        }
        assertThat(f.volume.extentReader().blockReads()).isEqualTo(8);
    }

    @Test
    void withoutBlockCrcsTheFirstReadVerifiesTheSpanAndTeachesItsBlocks() {
        // Proves the path after an open (block CRCs unknown): the first 4 KiB read reads the whole span (64 sectors),
        // and every later read of any block of it reads 8 sectors.
        VolumeFixture f = new VolumeFixture(16, VOLUME_BYTES, CacheMode.WRITEBACK);
        byte[] data = pattern(4, 32 << 10);
        assertThat(f.write(1 << 20, data, false)).isEqualTo(IoResult.OK);
        forgetBlockCrcs(f, 1 << 20);
        long before = cacheReadSectors(f);
        assertThat(f.read((1 << 20) + 8192, 4096)).isEqualTo(Arrays.copyOfRange(data, 8192, 12288));
        assertThat(cacheReadSectors(f) - before).isEqualTo(64);
        for (int block = 0; block < 8; block++) {
            long sectors = cacheReadSectors(f);
            assertThat(f.read((1 << 20) + block * 4096L, 4096))
                    .isEqualTo(Arrays.copyOfRange(data, block * 4096, block * 4096 + 4096));
            assertThat(cacheReadSectors(f) - sectors).as("block %d", block).isEqualTo(8);
        }
    }

    @Test
    void damageIsCaughtByEveryReadThatReturnsItAndByWriteback() {
        // Proves the guarantee the block CRCs give back (the trade-off of the old rule 12 is gone): after block 5 of a
        // span was read and verified, damage to it fails the next 4 KiB read of it; a read of another block still
        // succeeds from its own block; a whole-span read and writeback's read (CacheExtentReader.read) fail too.
        VolumeFixture f = new VolumeFixture(16, VOLUME_BYTES, CacheMode.WRITEBACK);
        byte[] data = pattern(5, 32 << 10);
        f.write(0, data, false);
        assertThat(f.read(5 * 4096, 4096)).isEqualTo(Arrays.copyOfRange(data, 5 * 4096, 6 * 4096));
        f.corruptCache(cacheOffsetOf(f, 0) + 4096 * 5 + 1024);
        IoResult damaged = f.readResult(5 * 4096, 4096);
        assertThat(damaged.status()).isEqualTo(IoStatus.IO_ERROR);
        assertThat(damaged.message()).contains("CRC32C");
        assertThat(f.read(4096, 4096)).isEqualTo(Arrays.copyOfRange(data, 4096, 8192));

        IoResult whole = f.readResult(0, 32 << 10);
        assertThat(whole.status()).isEqualTo(IoStatus.IO_ERROR);
        assertThat(whole.message()).contains("CRC32C");

        long[] key = new long[4];
        f.volume.index().lookup(0, 8, new LookupVisitor() {
            @Override
            public void hole(long start, int length) {
                throw new AssertionError("not cached");
            }

            @Override
            public void extent(long start, int length, long location, int crc32c, int crcOffset, int crcLength) {
                key[0] = location;
                key[1] = crc32c;
                key[2] = crcOffset;
                key[3] = crcLength;
            }
        });
        CacheExtentReader.Outcome[] outcome = new CacheExtentReader.Outcome[1];
        f.volume.extentReader().read(8, key[0], (int) key[1], (int) key[2], (int) key[3],
                ByteBuffer.allocate(4096), (o, r) -> outcome[0] = o);
        f.loop.runUntilIdle();
        assertThat(outcome[0]).isEqualTo(CacheExtentReader.Outcome.CHECKSUM_MISMATCH);
    }

    @Test
    void aPieceSmallerThanABlockIsReadAsItsBlockEvenOnA4KiBSectorDevice() {
        // Proves reads that are not whole blocks: on a cache device with 4 KiB logical blocks a 512-byte read inside
        // a span is sent as its whole (aligned) block, verified and copied; a 6 KiB read across two blocks reads both.
        MemoryDevice[] device4k = new MemoryDevice[1];
        VolumeFixture f = new VolumeFixture(16, VOLUME_BYTES, CacheMode.WRITEBACK,
                (loop, device) -> device4k[0] = new MemoryDevice(loop, device.sizeBytes(), 4096));
        byte[] data = pattern(6, 32 << 10);
        assertThat(f.write(0, data, false)).isEqualTo(IoResult.OK);
        long before = device4k[0].counters().completedSectors(DeviceOp.READ);
        assertThat(f.read(4096 + 512, 512)).isEqualTo(Arrays.copyOfRange(data, 4608, 5120));
        assertThat(device4k[0].counters().completedSectors(DeviceOp.READ) - before).isEqualTo(8);
        before = device4k[0].counters().completedSectors(DeviceOp.READ);
        assertThat(f.read(8192 + 2048, 6144)).isEqualTo(Arrays.copyOfRange(data, 10240, 16384));
        assertThat(device4k[0].counters().completedSectors(DeviceOp.READ) - before).isEqualTo(16);
        assertThat(f.volume.extentReader().blockReads()).isEqualTo(2);
    }

    @Test
    void aWriteThatDoesNotStartOnABlockHasCrcsOnlyForTheBlocksItFillsWhole() {
        // Proves a write packed after a 512-byte write (it starts one sector into a block of the bucket) checks the
        // blocks it fills whole by their CRCs, and a read touching its first, shared block verifies the span.
        VolumeFixture f = new VolumeFixture(16, VOLUME_BYTES, CacheMode.WRITEBACK);
        assertThat(f.write(8L << 20, pattern(7, 512), false)).isEqualTo(IoResult.OK);
        byte[] data = pattern(8, 32 << 10);
        assertThat(f.write(0, data, false)).isEqualTo(IoResult.OK);
        assertThat(ExtentLocation.offsetInBucketSectors(f.locationOf(0)) % 8).as("packed off a block").isNotZero();
        long before = cacheReadSectors(f);
        assertThat(f.read(8192, 4096)).isEqualTo(Arrays.copyOfRange(data, 8192, 12288));
        assertThat(cacheReadSectors(f) - before).as("two blocks").isEqualTo(16);
        before = cacheReadSectors(f);
        assertThat(f.read(0, 4096)).isEqualTo(Arrays.copyOfRange(data, 0, 4096));
        assertThat(cacheReadSectors(f) - before).as("the span").isEqualTo(64);
    }
}
