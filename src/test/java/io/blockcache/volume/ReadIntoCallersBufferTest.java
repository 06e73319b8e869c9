package io.blockcache.volume;

import static io.blockcache.volume.VolumeFixture.pattern;
import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.device.IoResult;
import io.blockcache.index.ExtentLocation;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * A read fills exactly its window of the caller's buffer (position to limit) and leaves the position and limit as
 * they were, on every path: a piece that is the whole request is read straight into the caller's buffer, others
 * through views, a verified span through a pooled buffer, a damaged clean piece again from the backing device. And
 * read requests are reused objects: one submitted from another's callback gets its own data.
 */
class ReadIntoCallersBufferTest {
    private static final long VOLUME_BYTES = 64L << 20;
    private static final int WINDOW_FROM = 4096;
    private static final byte FILLER = 0x55;

    @Test
    void aWholeCachedPieceLandsInTheWindowOnly() {
        // Proves the direct path (the piece is the whole request): the bytes around the window stay untouched and
        // the caller's position and limit are restored although the device moved the position.
        VolumeFixture f = new VolumeFixture(16, VOLUME_BYTES, CacheMode.WRITEBACK);
        byte[] data = pattern(1, 4096);
        assertThat(f.write(1 << 20, data, false)).isEqualTo(IoResult.OK);
        assertWindowRead(f, 1 << 20, data);
    }

    @Test
    void aPieceOfALargerSpanLandsInTheWindowVerifiedByItsSpanOrByItsBlocks() {
        // With the block CRCs forgotten (as after an open) the first read verifies the 32 KiB span through a pooled
        // buffer and copies the piece into the window; the second reads the piece straight into the window and checks
        // its block; a 2 KiB piece inside a block is read as that block through a pooled buffer and copied.
        VolumeFixture f = new VolumeFixture(16, VOLUME_BYTES, CacheMode.WRITEBACK);
        byte[] data = pattern(2, 32 << 10);
        f.write(0, data, false);
        f.space.allocator().blockChecksums().forget(ExtentLocation.bucket(f.locationOf(0)));
        byte[] block = Arrays.copyOfRange(data, 8192, 12288);
        long blockReads = f.volume.extentReader().blockReads();
        assertWindowRead(f, 8192, block);
        assertThat(f.volume.extentReader().blockReads()).isEqualTo(blockReads);
        assertWindowRead(f, 8192, block);
        assertThat(f.volume.extentReader().blockReads()).isEqualTo(blockReads + 1);
        assertWindowRead(f, 8192 + 1024, Arrays.copyOfRange(data, 8192 + 1024, 8192 + 3072));
        assertThat(f.volume.extentReader().blockReads()).isEqualTo(blockReads + 2);
    }

    @Test
    void aCachedPieceAndAHoleLandInTheirPartsOfTheWindow() {
        VolumeFixture f = new VolumeFixture(16, VOLUME_BYTES, CacheMode.WRITEBACK);
        byte[] cached = pattern(3, 4096);
        byte[] backing = pattern(4, 4096);
        f.write(1 << 20, cached, false);
        f.putBacking((1 << 20) + 4096, backing);
        byte[] both = new byte[8192];
        System.arraycopy(cached, 0, both, 0, 4096);
        System.arraycopy(backing, 0, both, 4096, 4096);
        assertWindowRead(f, 1 << 20, both);
    }

    @Test
    void aDamagedCleanPieceIsReadAgainFromTheBackingDeviceIntoTheWindow() {
        // Proves the retry after a CRC mismatch of clean data gets a fresh view of the window, though the failed cache
        // read went straight into the caller's buffer and moved its position.
        VolumeFixture f = new VolumeFixture(16, VOLUME_BYTES, CacheMode.WRITETHROUGH);
        byte[] data = pattern(5, 4096);
        assertThat(f.write(1 << 20, data, false)).isEqualTo(IoResult.OK);
        long location = f.locationOf(1 << 20);
        f.corruptCache(f.layout.byteOffset(ExtentLocation.bucket(location),
                ExtentLocation.offsetInBucketSectors(location)));
        assertWindowRead(f, 1 << 20, data);
        assertThat(f.volume.stats().checksumErrors()).isEqualTo(1);
    }

    @Test
    void aReadSubmittedFromAnotherReadsCallbackGetsItsOwnData() {
        // The first request goes back to the free list before its caller runs, so the second may be the same
        // object: each must still deliver its own data into its own buffer.
        VolumeFixture f = new VolumeFixture(16, VOLUME_BYTES, CacheMode.WRITEBACK);
        byte[] first = pattern(6, 4096);
        byte[] second = pattern(7, 4096);
        f.write(0, first, false);
        f.write(1 << 20, second, false);
        ByteBuffer a = ByteBuffer.allocate(4096);
        ByteBuffer b = ByteBuffer.allocate(4096);
        IoResult[] results = new IoResult[2];
        f.volume.read(0, a, r -> {
            results[0] = r;
            f.volume.read(1 << 20, b, r2 -> results[1] = r2);
        });
        f.loop.runUntilIdle();
        assertThat(results).containsExactly(IoResult.OK, IoResult.OK);
        assertThat(a.array()).isEqualTo(first);
        assertThat(b.array()).isEqualTo(second);
    }

    /** Reads {@code expected.length} bytes at {@code offset} into a window of a larger buffer and checks it all. */
    private static void assertWindowRead(VolumeFixture f, long offset, byte[] expected) {
        ByteBuffer buffer = ByteBuffer.allocate(WINDOW_FROM + expected.length + 4096);
        Arrays.fill(buffer.array(), FILLER);
        buffer.position(WINDOW_FROM).limit(WINDOW_FROM + expected.length);
        IoResult[] out = new IoResult[1];
        f.volume.read(offset, buffer, r -> out[0] = r);
        f.loop.runUntilIdle();
        assertThat(out[0]).isEqualTo(IoResult.OK);
        assertThat(buffer.position()).as("position").isEqualTo(WINDOW_FROM);
        assertThat(buffer.limit()).as("limit").isEqualTo(WINDOW_FROM + expected.length);
        byte[] all = buffer.array();
        assertThat(Arrays.copyOfRange(all, WINDOW_FROM, WINDOW_FROM + expected.length)).isEqualTo(expected);
        byte[] before = Arrays.copyOfRange(all, 0, WINDOW_FROM);
        byte[] after = Arrays.copyOfRange(all, WINDOW_FROM + expected.length, all.length);
        byte[] filler = new byte[4096];
        Arrays.fill(filler, FILLER);
        assertThat(before).as("bytes before the window").isEqualTo(filler);
        assertThat(after).as("bytes after the window").isEqualTo(filler);
    }
}
