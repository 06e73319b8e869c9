package io.blockcache.nbd;

import io.blockcache.device.IoCallback;
import io.blockcache.volume.Volume;
import java.nio.ByteBuffer;

/**
 * NBD_CMD_CACHE: prefetches the sectors covering the range into the cache ({@link Volume#prefetch}: every miss
 * filled, whatever the bypass rules say, waiting for room rather than dropping fills), one chunk at a time through
 * one buffer (the request's, allocated by the connection's reader), so a request of any length holds only {@link
 * #CHUNK_BYTES}. The reply comes when the whole range was walked, or when the cache had no clean room left (the
 * command is a hint: that is no error). Until 2026-12-07 it read through {@code Volume.read}, whose misses the
 * sequential cutoff left unfilled: a 64 MiB CACHE filled 3 MiB. Thread rule: the volumes' loop thread.
 */
final class CacheWarmer {
    /** 1 MiB per read: large enough to stream from the backing device, small enough to budget per request. */
    static final int CHUNK_BYTES = 1 << 20;
    private static final int SECTOR_BYTES = SectorSpan.SECTOR_BYTES;

    private CacheWarmer() {
    }

    /**
     * Prefetches the sectors covering {@code span} through {@code buffer} (at least one sector, reused for every
     * chunk) and then calls {@code done}.
     */
    static void warm(Volume volume, SectorSpan span, ByteBuffer buffer, IoCallback done) {
        long offsetBytes = span.firstSector() * SECTOR_BYTES;
        volume.prefetch(offsetBytes, span.endSector() * SECTOR_BYTES - offsetBytes, 0, buffer.clear(), done);
    }
}
