package io.blockcache.cli;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.DeviceCounters;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import io.blockcache.loop.EventLoop;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A file opened read-only (O_RDONLY) as a {@link BlockDevice}, for {@code check}: it must be able to examine
 * a cache file it may not write (a read-only mount, a file owned by another user) and must never change it.
 * Writes, flushes and discards complete with an error.
 *
 * <p>Reads run on the calling (loop) thread and complete through {@link EventLoop#execute}, so the callback
 * is never re-entrant. Blocking the loop is acceptable here and only here: this device serves a one-shot
 * offline tool whose loop runs nothing else. Bytes past the end of the file read as zeroes, as with
 * {@link io.blockcache.device.FileDevice}.
 */
final class ReadOnlyFileDevice implements BlockDevice {
    private final EventLoop loop;
    private final FileChannel channel;
    private final Path path;
    private final long sizeBytes;
    private final DeviceCounters counters = new DeviceCounters();

    private ReadOnlyFileDevice(EventLoop loop, FileChannel channel, Path path, long sizeBytes) {
        this.loop = loop;
        this.channel = channel;
        this.path = path;
        this.sizeBytes = sizeBytes;
    }

    /** Opens {@code path} read-only; its size is rounded down to whole sectors. */
    static ReadOnlyFileDevice open(EventLoop loop, Path path) throws IOException {
        FileChannel channel = FileChannel.open(path, StandardOpenOption.READ);
        try {
            long sizeBytes = channel.size() - channel.size() % SECTOR_BYTES;
            return new ReadOnlyFileDevice(loop, channel, path, sizeBytes);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    @Override
    public long sizeBytes() {
        return sizeBytes;
    }

    @Override
    public int logicalBlockBytes() {
        return SECTOR_BYTES;
    }

    @Override
    public void read(long offsetBytes, ByteBuffer dst, IoCallback callback) {
        IoResult result;
        if (offsetBytes < 0 || offsetBytes > sizeBytes - dst.remaining()) {
            result = IoResult.error(IoStatus.OUT_OF_RANGE, "read of " + dst.remaining() + " bytes at byte "
                    + offsetBytes + " is outside " + path + " (" + sizeBytes + " bytes)");
        } else {
            result = readFully(offsetBytes, dst);
        }
        loop.execute(() -> callback.complete(result));
    }

    private IoResult readFully(long offsetBytes, ByteBuffer dst) {
        try {
            long position = offsetBytes;
            while (dst.hasRemaining()) {
                int read = channel.read(dst, position);
                if (read < 0) {
                    while (dst.hasRemaining()) {
                        dst.put((byte) 0);
                    }
                    break;
                }
                position += read;
            }
            return IoResult.OK;
        } catch (IOException e) {
            return IoResult.error(IoStatus.IO_ERROR, "read at byte " + offsetBytes + " of " + path + ": " + e);
        }
    }

    @Override
    public void write(long offsetBytes, ByteBuffer src, boolean fua, IoCallback callback) {
        refuse("write", callback);
    }

    @Override
    public void flush(IoCallback callback) {
        refuse("flush", callback);
    }

    @Override
    public void discard(long offsetBytes, long lengthBytes, IoCallback callback) {
        refuse("discard", callback);
    }

    private void refuse(String op, IoCallback callback) {
        loop.execute(() -> callback.complete(IoResult.error(IoStatus.IO_ERROR, op + " refused: " + path
                + " is open read-only")));
    }

    @Override
    public DeviceCounters counters() {
        return counters;
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException e) {
            // Nothing was written, so nothing can be lost; say so rather than hide it.
            System.err.println("blockcache: closing " + path + " failed: " + e);
        }
    }
}
