package io.blockcache.bench;

import io.blockcache.cache.CacheSpace;
import io.blockcache.cache.WritePoint;
import io.blockcache.volume.Volume;
import java.util.zip.CRC32C;

/**
 * Fills a volume's index with many clean extents in seconds, without writing their data, for the GC latency
 * experiment (10 million extents would be 40 GiB of 4 KiB writes).
 *
 * <p><b>Why the result is a state the engine can be in:</b> the backing and cache devices are fresh sparse
 * memory devices, so every byte of both reads as zero. Each extent is inserted exactly as a read-miss fill
 * would insert it — space reserved from the clean write point, a clean extent whose CRC32C is that of zeroes,
 * the bucket unpinned afterwards — only the fill's data write is left out, because the cache bytes it would
 * write (zeroes) are already there. Reads of these extents therefore hit and verify. Clean extents are not
 * journaled (see {@code VolumeIndex.insertPiece}), so the prefill costs no journal space either.
 *
 * <p>Thread rule: the cache's loop thread.
 */
final class IndexPrefill {
    private IndexPrefill() {
    }

    /**
     * Inserts extents {@code [fromExtent, toExtent)}, extent {@code i} covering backing sectors
     * {@code [i * extentSectors, + extentSectors)}.
     *
     * @param extentSectors a divisor of the bucket size in sectors, so that no extent is split
     */
    static void insert(CacheSpace space, Volume volume, long fromExtent, long toExtent, int extentSectors) {
        int crc = zeroCrc32c(extentSectors * 512);
        WritePoint writePoint = space.cleanWritePoint();
        WritePoint.Reservation reservation = new WritePoint.Reservation();
        for (long extent = fromExtent; extent < toExtent; extent++) {
            if (!writePoint.reserve(extentSectors, reservation) || reservation.lengthSectors() != extentSectors) {
                throw new IllegalStateException("prefill: no whole " + extentSectors + "-sector space for extent "
                        + extent + " (cache too small?)");
            }
            int bucket = reservation.bucket();
            volume.index().insertPiece(extent * extentSectors, extentSectors, bucket, reservation.offsetSectors(),
                    space.currentGeneration(bucket), false, crc, 0, extentSectors, 0);
            space.allocator().unpin(bucket);
        }
    }

    /** CRC32C of {@code bytes} zero bytes. */
    static int zeroCrc32c(int bytes) {
        CRC32C crc = new CRC32C();
        crc.update(new byte[bytes]);
        return (int) crc.getValue();
    }
}
