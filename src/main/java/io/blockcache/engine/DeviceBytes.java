package io.blockcache.engine;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import java.nio.ByteBuffer;
import java.util.BitSet;
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

    /** What a salvaging read got: the bytes (unreadable blocks zero) and which 4 KiB blocks could not be read. */
    record Salvaged(byte[] bytes, BitSet unreadableBlocks) {
        /** Block size of {@link #unreadableBlocks}: 4 KiB, the cache device's I/O unit. */
        static final int BLOCK_BYTES = 4096;

        /** True if any byte of {@code [from, from + length)} lies in an unreadable block. */
        boolean unreadable(long from, long length) {
            int first = (int) (from / BLOCK_BYTES);
            int last = (int) ((from + Math.max(1, length) - 1) / BLOCK_BYTES);
            int hit = unreadableBlocks.nextSetBit(first);
            return hit >= 0 && hit <= last;
        }
    }

    /**
     * Reads {@code lengthBytes} (a multiple of 4 KiB) at {@code offsetBytes}, going on past read errors: a chunk
     * that fails is read again block by block, and each 4 KiB block that still fails (a latent sector error)
     * is left zero and named in the result. For metadata whose readers know which parts they need: a damaged
     * superblock copy or a journal block outside the replay range must not stop recovery.
     */
    static void readSalvaging(BlockDevice device, long offsetBytes, int lengthBytes, Consumer<Salvaged> done) {
        Salvaged salvaged = new Salvaged(new byte[lengthBytes], new BitSet());
        salvageChunk(device, offsetBytes, salvaged, 0, done);
    }

    private static void salvageChunk(BlockDevice device, long offsetBytes, Salvaged salvaged, int from,
                                     Consumer<Salvaged> done) {
        byte[] bytes = salvaged.bytes();
        if (from == bytes.length) {
            done.accept(salvaged);
            return;
        }
        int length = Math.min(CHUNK_BYTES, bytes.length - from);
        device.read(offsetBytes + from, ByteBuffer.wrap(bytes, from, length).slice(), result -> {
            if (result.ok()) {
                salvageChunk(device, offsetBytes, salvaged, from + length, done);
                return;
            }
            salvageBlocks(device, offsetBytes, salvaged, from, from + length,
                    () -> salvageChunk(device, offsetBytes, salvaged, from + length, done));
        });
    }

    private static void salvageBlocks(BlockDevice device, long offsetBytes, Salvaged salvaged, int from, int to,
                                      Runnable then) {
        if (from >= to) {
            then.run();
            return;
        }
        int length = Math.min(Salvaged.BLOCK_BYTES, to - from);
        device.read(offsetBytes + from, ByteBuffer.wrap(salvaged.bytes(), from, length).slice(), result -> {
            if (!result.ok()) {
                java.util.Arrays.fill(salvaged.bytes(), from, from + length, (byte) 0);
                salvaged.unreadableBlocks().set(from / Salvaged.BLOCK_BYTES);
            }
            salvageBlocks(device, offsetBytes, salvaged, from + length, to, then);
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
