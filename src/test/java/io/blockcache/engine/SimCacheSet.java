package io.blockcache.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.device.MemoryDevice;
import io.blockcache.format.CacheSuperblock;
import io.blockcache.format.DecodeResult;
import io.blockcache.loop.Prng;
import io.blockcache.loop.SimLoop;
import io.blockcache.volume.Volume;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.Consumer;

/**
 * Test support: one cache set on {@link MemoryDevice}s under a {@link SimLoop}, with blocking helpers and raw
 * access to the devices' bytes for deliberate corruption. A "crash" drops every pending event; the memory
 * devices keep what was written (they apply writes at submission), which is all the tests here need.
 *
 * <p>Thread rule: the test thread drives the loop; everything runs on it.
 */
final class SimCacheSet {
    static final CacheSetOptions OPTIONS = CacheSetOptions.defaults().withBucketSizeBytes(128 << 10)
            .withVerifyIndex(true);
    static final String EXPORT = "default";

    final SimLoop loop = new SimLoop();
    final MemoryDevice cache = new MemoryDevice(loop, 8L << 20, 512);
    final MemoryDevice backing = new MemoryDevice(loop, 17L << 20, 512);

    List<BackingSpec> backings() {
        return List.of(new BackingSpec(EXPORT, backing));
    }

    /** Formats {@link #cache} with {@link #backing} attached; {@code idSeed} makes the UUIDs. */
    void format(long idSeed) {
        Outcome<Void> formatted = await(done -> CacheSet.format(loop, cache, backings(), OPTIONS, new Prng(idSeed),
                fraction -> { }, done));
        assertThat(formatted.error()).as("format").isNull();
    }

    Outcome<CacheSet> open() {
        return open(cache, backings());
    }

    Outcome<CacheSet> open(BlockDevice cacheDevice, List<BackingSpec> specs) {
        return await(done -> CacheSet.open(loop, cacheDevice, specs, OPTIONS, done));
    }

    /** Opens and fails the test if recovery refused. */
    CacheSet openOk() {
        Outcome<CacheSet> opened = open();
        assertThat(opened.error()).as("open").isNull();
        return opened.value();
    }

    /** A power cut with everything written already on the media: pending events and timers are dropped. */
    void crash() {
        loop.discardPending();
    }

    <T> T await(Consumer<Consumer<T>> op) {
        return await(loop, op);
    }

    /** Starts {@code op} and runs {@code loop} until it answered; fails the test if it never does. */
    static <T> T await(SimLoop loop, Consumer<Consumer<T>> op) {
        Object[] box = new Object[1];
        boolean[] answered = new boolean[1];
        op.accept(value -> {
            box[0] = value;
            answered[0] = true;
        });
        loop.runUntil(() -> answered[0]);
        assertThat(answered[0]).as("operation answered").isTrue();
        @SuppressWarnings("unchecked")
        T value = (T) box[0];
        return value;
    }

    IoResult io(Consumer<IoCallback> op) {
        return await(done -> op.accept(done::accept));
    }

    void writeOk(Volume volume, long offsetBytes, byte[] data) {
        assertThat(io(cb -> volume.write(offsetBytes, ByteBuffer.wrap(data), false, cb))).isEqualTo(IoResult.OK);
    }

    void flushOk(Volume volume) {
        assertThat(io(volume::flush)).isEqualTo(IoResult.OK);
    }

    byte[] readOk(Volume volume, long offsetBytes, int lengthBytes) {
        ByteBuffer buffer = ByteBuffer.allocate(lengthBytes);
        assertThat(io(cb -> volume.read(offsetBytes, buffer, cb))).as("read at %s", offsetBytes)
                .isEqualTo(IoResult.OK);
        return buffer.array();
    }

    /** The device's bytes, read through the device. */
    byte[] rawRead(BlockDevice device, long offsetBytes, int lengthBytes) {
        ByteBuffer buffer = ByteBuffer.allocate(lengthBytes);
        assertThat(io(cb -> device.read(offsetBytes, buffer, cb))).isEqualTo(IoResult.OK);
        return buffer.array();
    }

    /** Overwrites device bytes at any byte offset (read-modify-write of the surrounding sectors). */
    void rawWrite(BlockDevice device, long offsetBytes, byte[] bytes) {
        long from = offsetBytes - offsetBytes % 512;
        int length = (int) (((offsetBytes + bytes.length + 511) / 512) * 512 - from);
        byte[] sectors = rawRead(device, from, length);
        System.arraycopy(bytes, 0, sectors, (int) (offsetBytes - from), bytes.length);
        assertThat(io(cb -> device.write(from, ByteBuffer.wrap(sectors), false, cb))).isEqualTo(IoResult.OK);
    }

    /** Inverts the bits of the byte at {@code offsetBytes}: what a media error does to one byte. */
    void flipByte(BlockDevice device, long offsetBytes) {
        byte[] one = rawRead(device, offsetBytes - offsetBytes % 512, 512);
        int at = (int) (offsetBytes % 512);
        one[at] = (byte) ~one[at];
        rawWrite(device, offsetBytes - offsetBytes % 512, one);
    }

    /** Decodes superblock copy A (at byte 0) or B (at byte 4096) as it is on the device now. */
    DecodeResult<CacheSuperblock> superblockCopy(long copyOffsetBytes) {
        return CacheSuperblock.decode(rawRead(cache, copyOffsetBytes, CacheSuperblock.BYTES), 0);
    }

    static byte[] pattern(long seed, int bytes) {
        byte[] data = new byte[bytes];
        new Prng(seed).nextBytes(data);
        return data;
    }
}
