package io.blockcache.engine;

import io.blockcache.device.IoResult;
import io.blockcache.loop.Prng;
import io.blockcache.volume.Volume;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * Test support: the process that {@link KillNineTest} kills with SIGKILL. Opens (formatting first if asked)
 * a cache set on a cache file and a backing file, then writes the seeded sequence {@link #write} one write at
 * a time, and every {@link #FLUSH_EVERY} writes sends a FLUSH.
 *
 * <p>Protocol on stdout, one line each, flushed as printed ({@code System.out} flushes on println):
 * <ul>
 *   <li>{@code SUBMIT i} before write {@code i} (0-based) is handed to the volume: no write later than the
 *       last SUBMIT line can have touched the files;</li>
 *   <li>{@code FLUSHED n} after a FLUSH is acknowledged: writes {@code 0 .. n-1} are durable;</li>
 *   <li>{@code HOLDING} once {@code flushesMax} FLUSHes were acknowledged and {@link #FLUSH_EVERY} more writes
 *       were made without a FLUSH; it then waits to be killed (it exits when its stdin closes, so it never
 *       outlives the test). Why: the killer may react late on a loaded machine; stopping here keeps the kill
 *       between the last FLUSH and a FLUSH that never comes, whenever it lands.</li>
 *   <li>{@code ERROR ...} and exit status 2 on any failure, or if stdin closes while holding.</li>
 * </ul>
 *
 * <p>Arguments: cacheFile backingFile format(true|false) seed flushesMax.
 */
public final class KillNineWriter {
    /** Writes between FLUSHes: several writes per journal entry, several entries per bucket. */
    static final int FLUSH_EVERY = 8;
    /** Write sizes are 1..this many 4 KiB blocks (4..64 KiB). */
    static final int WRITE_BLOCKS_MAX = 16;
    static final int BLOCK_BYTES = 4096;

    private KillNineWriter() {
    }

    /** Write {@code index} of the sequence for {@code seed}: where and what. */
    record Write(long offsetBytes, byte[] data) {
    }

    /** The {@code index}-th write of the seeded sequence; a pure function of (seed, index). */
    static Write write(long seed, int index) {
        Prng prng = new Prng(seed * 1_000_003L + index);
        int blocks = 1 + prng.nextInt(WRITE_BLOCKS_MAX);
        long slots = FileCacheSet.VOLUME_BYTES / BLOCK_BYTES - blocks + 1;
        long offsetBytes = prng.nextLong(slots) * BLOCK_BYTES;
        byte[] data = new byte[blocks * BLOCK_BYTES];
        prng.nextBytes(data);
        return new Write(offsetBytes, data);
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            System.out.println("ERROR usage: cacheFile backingFile format seed flushesMax");
            System.exit(2);
        }
        Path cachePath = Path.of(args[0]);
        Path backingPath = Path.of(args[1]);
        boolean format = Boolean.parseBoolean(args[2]);
        long seed = Long.parseLong(args[3]);
        int flushesMax = Integer.parseInt(args[4]);
        try {
            run(cachePath, backingPath, format, seed, flushesMax);
        } catch (RuntimeException e) {
            System.out.println("ERROR " + e);
            e.printStackTrace();
            System.exit(2);
        }
        System.out.println("HOLDING");
        while (System.in.read() >= 0) {
            // Nothing is ever sent: this only blocks until the kill, or until the test's end of the pipe closes.
        }
        System.out.println("ERROR stdin closed before the kill");
        System.exit(2);
    }

    private static void run(Path cachePath, Path backingPath, boolean format, long seed, int flushesMax)
            throws Exception {
        FileCacheSet files = format ? FileCacheSet.create(cachePath, backingPath)
                : FileCacheSet.openFiles(cachePath, backingPath);
        if (format) {
            Outcome<Void> formatted = files.format(seed);
            if (!formatted.isOk()) {
                throw new IllegalStateException("format failed: " + formatted.error());
            }
        }
        Outcome<CacheSet> opened = files.openSet();
        if (!opened.isOk()) {
            throw new IllegalStateException("open failed: " + opened.error());
        }
        Volume volume = opened.value().volume(FileCacheSet.EXPORT);
        if (volume.sizeBytes() != FileCacheSet.VOLUME_BYTES) {
            throw new IllegalStateException("volume is " + volume.sizeBytes() + " bytes, expected "
                    + FileCacheSet.VOLUME_BYTES);
        }
        System.out.println("READY");
        int writes = (flushesMax + 1) * FLUSH_EVERY; // the last FLUSH_EVERY of them are never flushed
        for (int i = 0; i < writes; i++) {
            Write next = write(seed, i);
            System.out.println("SUBMIT " + i);
            IoResult written = OnLoop.io(files.loop,
                    cb -> volume.write(next.offsetBytes(), ByteBuffer.wrap(next.data()), false, cb));
            if (!written.ok()) {
                throw new IllegalStateException("write " + i + " failed: " + written);
            }
            if ((i + 1) % FLUSH_EVERY == 0 && (i + 1) / FLUSH_EVERY <= flushesMax) {
                IoResult flushed = OnLoop.io(files.loop, volume::flush);
                if (!flushed.ok()) {
                    throw new IllegalStateException("flush after write " + i + " failed: " + flushed);
                }
                System.out.println("FLUSHED " + (i + 1));
            }
        }
    }
}
