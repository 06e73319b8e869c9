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
 * Reads of part of a larger checksummed span (docs/FORMAT.md §7 rule 12): the first verifies the whole span,
 * later ones read only their own blocks; writeback and whole-span reads always verify.
 */
class VerifiedSpanReadTest {
    private static final long VOLUME_BYTES = 64L << 20;

    private static long cacheReadSectors(VolumeFixture f) {
        return f.cacheDevice.counters().completedSectors(DeviceOp.READ);
    }

    @Test
    void afterTheFirstVerifiedReadA4KiBReadOfA32KiBSpanReadsOnly4KiB() {
        // Proves the first 4 KiB read inside a 32 KiB write (one extent: the fixture cuts at 32 KiB) reads the
        // whole span (64 sectors), every later read of any block of it reads 8 sectors, and the data is right.
        VolumeFixture f = new VolumeFixture(16, VOLUME_BYTES, CacheMode.WRITEBACK);
        byte[] data = pattern(3, 32 << 10);
        assertThat(f.write(1 << 20, data, false)).isEqualTo(IoResult.OK);
        long before = cacheReadSectors(f);
        assertThat(f.read((1 << 20) + 8192, 4096)).isEqualTo(Arrays.copyOfRange(data, 8192, 12288));
        assertThat(cacheReadSectors(f) - before).isEqualTo(64);
        for (int block = 0; block < 8; block++) {
            long sectors = cacheReadSectors(f);
            assertThat(f.read((1 << 20) + block * 4096L, 4096))
                    .isEqualTo(Arrays.copyOfRange(data, block * 4096, block * 4096 + 4096));
            assertThat(cacheReadSectors(f) - sectors).as("block %d", block).isEqualTo(8);
        }
        assertThat(f.volume.extentReader().trustedReads()).isEqualTo(8);
    }

    @Test
    void damageAfterVerificationIsStillCaughtByWholeSpanReadsAndByWriteback() {
        // Proves the trade-off stays where rule 12 puts it: once a span was verified a later partial read trusts
        // its blocks, but a read of the whole span and writeback's read (CacheExtentReader.read) verify again.
        VolumeFixture f = new VolumeFixture(16, VOLUME_BYTES, CacheMode.WRITEBACK);
        byte[] data = pattern(4, 32 << 10);
        f.write(0, data, false);
        f.read(4096, 4096); // verifies the span and marks its blocks
        long location = f.locationOf(0);
        f.corruptCache(f.layout.byteOffset(ExtentLocation.bucket(location),
                ExtentLocation.offsetInBucketSectors(location)) + 4096 * 5);
        assertThat(f.read(4096, 4096)).as("trusted: rule 12's trade-off").isEqualTo(
                Arrays.copyOfRange(data, 4096, 8192));

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
    void aPieceThatIsNotWholeDeviceSectorsIsReadWithItsSpan() {
        // Proves that on a cache device with 4 KiB logical blocks a 512-byte read inside a verified span is not
        // sent to the device alone (it would be refused as misaligned): it reads and verifies the span instead.
        VolumeFixture f = new VolumeFixture(16, VOLUME_BYTES, CacheMode.WRITEBACK,
                (loop, device) -> new MemoryDevice(loop, device.sizeBytes(), 4096));
        byte[] data = pattern(6, 32 << 10);
        assertThat(f.write(0, data, false)).isEqualTo(IoResult.OK);
        assertThat(f.read(4096, 4096)).isEqualTo(Arrays.copyOfRange(data, 4096, 8192));
        assertThat(f.read(4096 + 512, 512)).isEqualTo(Arrays.copyOfRange(data, 4608, 5120));
        assertThat(f.read(8192, 4096)).isEqualTo(Arrays.copyOfRange(data, 8192, 12288));
        assertThat(f.volume.extentReader().trustedReads()).isEqualTo(1);
    }
}
