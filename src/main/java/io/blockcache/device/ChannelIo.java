package io.blockcache.device;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * The blocking part of a {@link FileDevice}: one positional transfer or force on the channel, looped
 * until it is complete. One instance per I/O thread, because it owns that thread's bounce buffer.
 *
 * <p>O_DIRECT needs buffers whose address is aligned; a caller's heap buffer, or a direct buffer at an
 * unaligned address, is staged through the bounce buffer in chunks of at most {@value #BOUNCE_BYTES}
 * bytes. The bounce buffers are therefore bounded by queue depth × {@value #BOUNCE_BYTES} bytes and are
 * allocated only by threads that need one.
 *
 * <p>Thread rule: only its own I/O thread.
 */
final class ChannelIo {
    /** Bounce chunk: 1 MiB, a large I/O for any device (Linux max_sectors_kb is often 1280) yet cheap to pin. */
    static final int BOUNCE_BYTES = 1024 * 1024;

    /** Source for the zeroes of a read past the end of the file: 4 KiB, one page, copied as often as needed. */
    private static final byte[] ZEROES = new byte[4096];

    private final FileChannel channel;
    private final boolean direct;
    private final int alignmentBytes;
    private ByteBuffer bounce;

    /**
     * @param direct true if the channel was opened with O_DIRECT
     * @param alignmentBytes the buffer address alignment O_DIRECT needs (a power of two)
     */
    ChannelIo(FileChannel channel, boolean direct, int alignmentBytes) {
        this.channel = channel;
        this.direct = direct;
        this.alignmentBytes = alignmentBytes;
    }

    /** Performs {@code request}; an I/O failure is thrown for the caller to turn into a result. */
    void perform(FileRequest request) throws IOException {
        switch (request.op) {
            case READ -> read(request.offsetBytes, request.buffer);
            case WRITE -> {
                write(request.offsetBytes, request.buffer);
                if (request.fua) {
                    // Java has no per-write FUA (no RWF_DSYNC); forcing the whole file is the conservative stand-in.
                    channel.force(false);
                }
            }
            case FLUSH -> channel.force(false);
            case DISCARD -> throw new IllegalStateException("discard never reaches an I/O thread");
        }
    }

    private void read(long offsetBytes, ByteBuffer dst) throws IOException {
        if (!needsBounce(dst)) {
            readFully(offsetBytes, dst);
            return;
        }
        ByteBuffer stage = bounce();
        long position = offsetBytes;
        while (dst.hasRemaining()) {
            int chunkBytes = Math.min(dst.remaining(), BOUNCE_BYTES);
            stage.clear().limit(chunkBytes);
            readFully(position, stage);
            dst.put(stage.flip());
            position += chunkBytes;
        }
    }

    private void write(long offsetBytes, ByteBuffer src) throws IOException {
        if (!needsBounce(src)) {
            writeFully(offsetBytes, src);
            return;
        }
        ByteBuffer stage = bounce();
        long position = offsetBytes;
        while (src.hasRemaining()) {
            int chunkBytes = Math.min(src.remaining(), BOUNCE_BYTES);
            stage.clear().put(stage.position(), src, src.position(), chunkBytes).limit(chunkBytes);
            src.position(src.position() + chunkBytes);
            writeFully(position, stage);
            position += chunkBytes;
        }
    }

    /** Reads until {@code dst} is full; the part past the end of the file reads as zeroes (a sparse tail). */
    private void readFully(long offsetBytes, ByteBuffer dst) throws IOException {
        long position = offsetBytes;
        while (dst.hasRemaining()) {
            int readBytes = channel.read(dst, position);
            if (readBytes < 0) {
                while (dst.hasRemaining()) {
                    int zeroBytes = Math.min(dst.remaining(), ZEROES.length);
                    dst.put(ZEROES, 0, zeroBytes);
                }
                return;
            }
            if (readBytes == 0) {
                throw new IOException("read made no progress at position " + position);
            }
            position += readBytes;
        }
    }

    private void writeFully(long offsetBytes, ByteBuffer src) throws IOException {
        long position = offsetBytes;
        while (src.hasRemaining()) {
            int writtenBytes = channel.write(src, position);
            if (writtenBytes <= 0) {
                throw new IOException("write made no progress at position " + position);
            }
            position += writtenBytes;
        }
    }

    private boolean needsBounce(ByteBuffer buffer) {
        return direct && (!buffer.isDirect() || buffer.alignmentOffset(buffer.position(), alignmentBytes) != 0);
    }

    private ByteBuffer bounce() {
        if (bounce == null) {
            bounce = ByteBuffer.allocateDirect(BOUNCE_BYTES + alignmentBytes).alignedSlice(alignmentBytes);
        }
        return bounce;
    }
}
