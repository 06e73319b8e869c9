package io.blockcache.engine;

import io.blockcache.format.BackingHeader;
import io.blockcache.format.JournalRecord;
import io.blockcache.format.JournalRecordCodec;

/** How a cache device of a given size is laid out (docs/FORMAT.md §2), decided once at format time. */
final class Geometry {
    /** Bucket 0 starts at 1 MiB: room for both superblock copies and alignment for any device. */
    static final long DATA_START_BYTES = 1 << 20;
    /** Fewest buckets a cache can work with: a journal ring of 3, two write points, a checkpoint, spare. */
    static final int BUCKETS_MIN = 16;

    private Geometry() {
    }

    /** Buckets that fit on a cache device of {@code deviceBytes}. */
    static int bucketCount(long deviceBytes, int bucketSizeBytes) {
        return (int) Math.min(Integer.MAX_VALUE, Math.max(0, (deviceBytes - DATA_START_BYTES) / bucketSizeBytes));
    }

    /** The journal ring size: as asked, or 1/128 of the buckets within [4, 64]. */
    static int journalBuckets(int bucketCount, int asked) {
        if (asked > 0) {
            return asked;
        }
        return Math.max(4, Math.min(64, bucketCount / 128));
    }

    /** The volume size a backing device of {@code deviceBytes} exports: after its 1 MiB header, 4 KiB whole. */
    static long volumeBytes(long deviceBytes) {
        return Math.max(0, (deviceBytes - BackingHeader.DEFAULT_DATA_OFFSET_BYTES) & ~4095L);
    }

    /** As {@link #volumeBytes(long)}, with a backing log of {@code logBytes} after the header's MiB. */
    static long volumeBytes(long deviceBytes, long logBytes) {
        return Math.max(0, (deviceBytes - BackingHeader.DEFAULT_DATA_OFFSET_BYTES - logBytes) & ~4095L);
    }

    /**
     * The most buckets one checkpoint can take: the reserve ({@link #metadataReserveBuckets}) is at most a quarter of
     * the buckets, and a checkpoint's completion record names at most {@link JournalRecord.CheckpointDone#BUCKETS_MAX}.
     */
    static int checkpointBucketsMax(int bucketCount) {
        return Math.max(1, Math.min(JournalRecord.CheckpointDone.BUCKETS_MAX, bucketCount / 4));
    }

    /**
     * Buckets kept for checkpoints: room for two checkpoints (the durable one and the next) at an average
     * extent of 4 KiB, 33 bytes per extent on disk, plus two buckets of slack. The floor of
     * {@link #metadataReserveBuckets(int, int, long)}.
     */
    static int metadataReserveBuckets(int dataBuckets, int bucketSizeBytes) {
        long extentsMax = (long) dataBuckets * (bucketSizeBytes / 4096);
        long bytes = extentsMax * 33 + (long) dataBuckets * 2;
        long buckets = (bytes + bucketSizeBytes - 1) / bucketSizeBytes;
        return (int) Math.min(dataBuckets / 4, 2 * buckets + 2);
    }

    /** Write points that may be filling at once (front-end, fill, GC move, one spare): what grows between checks. */
    private static final int OPEN_WRITE_POINTS = 4;

    /**
     * Buckets kept for checkpoints when the index holds {@code extents}: room for two checkpoints (the durable one and
     * the next) of that many extents, plus those the open write points can still add (two per 512-byte write: the
     * write's own and the split of the one it lands in), plus every bucket's generation, block CRCs and coverage, with
     * an eighth of each bucket lost to chunk packing and two buckets of slack; never less than the 4 KiB floor, never
     * more than a quarter of the data buckets. Asked at every bucket allocation, so it grows before the extents can
     * outgrow it. Trims and write-zeroes that split an extent add one without allocating: a storm of them can still
     * outrun it (the checkpoint then fails and retries while GC and writeback make room).
     */
    static int metadataReserveBuckets(int dataBuckets, int bucketSizeBytes, long extents) {
        int floor = metadataReserveBuckets(dataBuckets, bucketSizeBytes);
        long growth = (long) OPEN_WRITE_POINTS * 2 * (bucketSizeBytes / 512);
        long extentBytes = JournalRecordCodec.EXTENT_BODY_BYTES + JournalRecordCodec.EPOCH_BYTES;
        long perBucketBytes = (bucketSizeBytes / 4096) * 4L + 2 + JournalRecordCodec.CLEAN_COVERED_BYTES;
        long bytes = (extents + growth) * extentBytes + (long) dataBuckets * perBucketBytes;
        long usableBytes = bucketSizeBytes - bucketSizeBytes / 8;
        long buckets = (bytes + usableBytes - 1) / usableBytes;
        return (int) Math.min(dataBuckets / 4, Math.max(floor, 2 * buckets + 2));
    }
}
