package io.blockcache.volume;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.cache.BucketState;
import io.blockcache.cache.BucketTable;
import io.blockcache.cache.CacheLayout;
import io.blockcache.cache.CacheSpace;
import io.blockcache.device.BlockDevice;
import io.blockcache.device.IoResult;
import io.blockcache.device.MemoryDevice;
import io.blockcache.index.ExtentIndex;
import io.blockcache.index.LookupVisitor;
import io.blockcache.loop.SimLoop;
import java.nio.ByteBuffer;

/** A volume over memory devices in a simulated loop, with helpers that run a request to completion. */
final class VolumeFixture {
    static final int BUCKET_BYTES = 128 << 10;
    static final long DATA_OFFSET_BYTES = 1 << 20;

    final SimLoop loop = new SimLoop();
    final MemoryDevice cacheDevice;
    final MemoryDevice backingDevice;
    final RecordingJournal journal = new RecordingJournal(loop);
    final CacheLayout layout;
    final CacheSpace space;
    final ExtentIndex extents;
    final Volume volume;

    VolumeFixture(int buckets, long volumeBytes, CacheMode mode) {
        this(buckets, volumeBytes, mode, (loop, device) -> device);
    }

    /** A fixture whose volume sees the cache device through {@code wrapCache} (e.g. a slow FaultyDevice). */
    VolumeFixture(int buckets, long volumeBytes, CacheMode mode,
                  java.util.function.BiFunction<SimLoop, BlockDevice, BlockDevice> wrapCache) {
        this(buckets, volumeBytes, mode, wrapCache, java.util.function.UnaryOperator.identity());
    }

    /** As above, and the volume sees the backing device through {@code wrapBacking}. */
    VolumeFixture(int buckets, long volumeBytes, CacheMode mode,
                  java.util.function.BiFunction<SimLoop, BlockDevice, BlockDevice> wrapCache,
                  java.util.function.UnaryOperator<BlockDevice> wrapBacking) {
        layout = new CacheLayout(1 << 20, BUCKET_BYTES, buckets);
        cacheDevice = new MemoryDevice(loop, layout.requiredDeviceBytes(), 512);
        backingDevice = new MemoryDevice(loop, DATA_OFFSET_BYTES + volumeBytes, 512);
        BucketTable table = new BucketTable(buckets, layout.bucketSectors());
        for (int b = 0; b < buckets; b++) {
            table.setState(b, BucketState.FREE);
        }
        space = new CacheSpace(layout, table, journal);
        extents = new ExtentIndex(space, true);
        VolumeIndex index = new VolumeIndex(0, extents, journal, space);
        VolumeConfig config = new VolumeConfig(0, volumeBytes, DATA_OFFSET_BYTES, mode, true, 64);
        volume = new Volume(loop, config, wrapCache.apply(loop, cacheDevice), wrapBacking.apply(backingDevice), layout,
                space, index, journal);
    }

    static byte[] pattern(int seed, int bytes) {
        byte[] data = new byte[bytes];
        for (int i = 0; i < bytes; i++) {
            data[i] = (byte) (seed * 31 + i * 7 + (i >> 9));
        }
        return data;
    }

    IoResult write(long offset, byte[] data, boolean fua) {
        IoResult[] out = new IoResult[1];
        volume.write(offset, ByteBuffer.wrap(data), fua, r -> out[0] = r);
        loop.runUntilIdle();
        assertThat(out[0]).as("write completed").isNotNull();
        return out[0];
    }

    byte[] read(long offset, int bytes) {
        ByteBuffer buffer = ByteBuffer.allocate(bytes);
        IoResult[] out = new IoResult[1];
        volume.read(offset, buffer, r -> out[0] = r);
        loop.runUntilIdle();
        assertThat(out[0]).as("read of %d bytes at %d", bytes, offset).isEqualTo(IoResult.OK);
        return buffer.array();
    }

    IoResult readResult(long offset, int bytes) {
        IoResult[] out = new IoResult[1];
        volume.read(offset, ByteBuffer.allocate(bytes), r -> out[0] = r);
        loop.runUntilIdle();
        return out[0];
    }

    IoResult flush() {
        IoResult[] out = new IoResult[1];
        volume.flush(r -> out[0] = r);
        loop.runUntilIdle();
        return out[0];
    }

    byte[] backing(long volumeOffset, int bytes) {
        ByteBuffer buffer = ByteBuffer.allocate(bytes);
        IoResult[] out = new IoResult[1];
        backingDevice.read(DATA_OFFSET_BYTES + volumeOffset, buffer, r -> out[0] = r);
        loop.runUntilIdle();
        assertThat(out[0]).isEqualTo(IoResult.OK);
        return buffer.array();
    }

    void putBacking(long volumeOffset, byte[] data) {
        IoResult[] out = new IoResult[1];
        backingDevice.write(DATA_OFFSET_BYTES + volumeOffset, ByteBuffer.wrap(data), false, r -> out[0] = r);
        loop.runUntilIdle();
        assertThat(out[0]).isEqualTo(IoResult.OK);
    }

    void corruptCache(long cacheOffset) {
        ByteBuffer one = ByteBuffer.allocate(BlockDevice.SECTOR_BYTES);
        cacheDevice.read(cacheOffset, one, r -> { });
        loop.runUntilIdle();
        one.put(0, (byte) (one.get(0) ^ 0xFF));
        one.clear();
        cacheDevice.write(cacheOffset, one, false, r -> { });
        loop.runUntilIdle();
    }

    /** The location of the (single) cached piece holding volume byte {@code offset}. */
    long locationOf(long offset) {
        long[] at = new long[1];
        volume.index().lookup(offset / BlockDevice.SECTOR_BYTES, 1, new LookupVisitor() {
            @Override
            public void hole(long start, int length) {
                throw new AssertionError("not cached");
            }

            @Override
            public void extent(long start, int length, long location, int crc32c, int crcOffset, int crcLength) {
                at[0] = location;
            }
        });
        return at[0];
    }
}
