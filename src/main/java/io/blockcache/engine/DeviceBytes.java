package io.blockcache.engine;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import java.nio.ByteBuffer;
import java.util.function.Consumer;

/** Whole-range reads and writes of byte arrays, in chunks, one chunk in flight: for start-up and format. */
final class DeviceBytes {
    /** 1 MiB per request keeps start-up reads large without big buffers. */
    static final int CHUNK_BYTES = 1 << 20;

    private DeviceBytes() {
    }

    /** Reads {@code lengthBytes} at {@code offsetBytes} into a new array. */
    static void read(BlockDevice device, long offsetBytes, int lengthBytes, Consumer<Outcome<byte[]>> done) {
        byte[] bytes = new byte[lengthBytes];
        readChunk(device, offsetBytes, bytes, 0, done);
    }

    private static void readChunk(BlockDevice device, long offsetBytes, byte[] bytes, int from,
                                  Consumer<Outcome<byte[]>> done) {
        if (from == bytes.length) {
            done.accept(Outcome.ok(bytes));
            return;
        }
        int length = Math.min(CHUNK_BYTES, bytes.length - from);
        device.read(offsetBytes + from, ByteBuffer.wrap(bytes, from, length).slice(), result -> {
            if (!result.ok()) {
                done.accept(Outcome.failed("reading " + length + " bytes at byte " + (offsetBytes + from) + " failed: "
                        + result.message()));
                return;
            }
            readChunk(device, offsetBytes, bytes, from + length, done);
        });
    }

    /** Writes {@code bytes} at {@code offsetBytes}; the last chunk with FUA if {@code fua}. */
    static void write(BlockDevice device, long offsetBytes, byte[] bytes, boolean fua, IoCallback done) {
        writeChunk(device, offsetBytes, bytes, 0, fua, done);
    }

    private static void writeChunk(BlockDevice device, long offsetBytes, byte[] bytes, int from, boolean fua,
                                   IoCallback done) {
        if (from == bytes.length) {
            done.complete(IoResult.OK);
            return;
        }
        int length = Math.min(CHUNK_BYTES, bytes.length - from);
        boolean last = from + length == bytes.length;
        device.write(offsetBytes + from, ByteBuffer.wrap(bytes, from, length).slice(), fua && last, result -> {
            if (!result.ok()) {
                done.complete(result);
                return;
            }
            writeChunk(device, offsetBytes, bytes, from + length, fua, done);
        });
    }

    /** Writes {@code bytes} then flushes the device. */
    static void writeAndFlush(BlockDevice device, long offsetBytes, byte[] bytes, IoCallback done) {
        write(device, offsetBytes, bytes, false, written -> {
            if (!written.ok()) {
                done.complete(written);
                return;
            }
            device.flush(done);
        });
    }
}
