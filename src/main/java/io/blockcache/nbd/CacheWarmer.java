package io.blockcache.nbd;

import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.volume.Volume;
import java.nio.ByteBuffer;

/**
 * NBD_CMD_CACHE: reads a range through the volume so that misses fill the cache, and drops the data. Reads
 * the covering sectors one chunk at a time into one buffer (the request's, allocated by the connection's
 * reader), so a request of any length holds only {@link #CHUNK_BYTES}. Thread rule: the volumes' loop thread.
 */
final class CacheWarmer {
    /** 1 MiB per read: large enough to stream from the backing device, small enough to budget per request. */
    static final int CHUNK_BYTES = 1 << 20;
    private static final int SECTOR_BYTES = SectorSpan.SECTOR_BYTES;

    private final Volume volume;
    private final long endBytes;
    private final IoCallback done;
    private final ByteBuffer buffer;
    private long nextBytes;

    /**
     * Warms the sectors covering {@code span} through {@code buffer} (at least one sector, reused for every
     * chunk) and then calls {@code done}.
     */
    static void warm(Volume volume, SectorSpan span, ByteBuffer buffer, IoCallback done) {
        new CacheWarmer(volume, span, buffer, done).next();
    }

    private CacheWarmer(Volume volume, SectorSpan span, ByteBuffer buffer, IoCallback done) {
        this.volume = volume;
        this.nextBytes = span.firstSector() * SECTOR_BYTES;
        this.endBytes = span.endSector() * SECTOR_BYTES;
        this.done = done;
        this.buffer = buffer;
    }

    private void next() {
        if (nextBytes >= endBytes) {
            done.complete(IoResult.OK);
            return;
        }
        int chunk = (int) Math.min(buffer.capacity() / SECTOR_BYTES * SECTOR_BYTES, endBytes - nextBytes);
        long offsetBytes = nextBytes;
        nextBytes += chunk;
        volume.read(offsetBytes, buffer.clear().limit(chunk), result -> {
            if (!result.ok()) {
                done.complete(result);
            } else {
                next();
            }
        });
    }
}
