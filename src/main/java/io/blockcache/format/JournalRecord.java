package io.blockcache.format;

import io.blockcache.loop.Checks;
import java.util.List;

/**
 * One index update carried in a journal entry; {@link JournalRecordCodec} gives the bytes. Lengths are in
 * sectors (512 B); a cache location is bucket + offsetInBucketSectors + the bucket generation it was
 * written under. Constructors validate every field against its on-disk width.
 */
public sealed interface JournalRecord {
    /** Type byte of {@link ExtentInsert}. */
    int TYPE_EXTENT_INSERT = 1;
    /** Type byte of {@link ExtentRemove}. */
    int TYPE_EXTENT_REMOVE = 2;
    /** Type byte of {@link ExtentClean}. */
    int TYPE_EXTENT_CLEAN = 3;
    /** Type byte of {@link BucketGeneration}. */
    int TYPE_BUCKET_GENERATION = 4;
    /** Type byte of {@link CheckpointDone}. */
    int TYPE_CHECKPOINT_DONE = 5;
    /** Type byte of {@link CleanShutdown}. */
    int TYPE_CLEAN_SHUTDOWN = 6;
    /** Type byte of an {@link ExtentInsert} that carries its write's flush epoch ({@link ExtentInsert#epoch}). */
    int TYPE_EXTENT_INSERT_EPOCH = 7;
    /** Type byte of {@link EpochsVoid}. */
    int TYPE_EPOCHS_VOID = 8;
    /** Type byte of {@link BlockCrcs}. */
    int TYPE_BLOCK_CRCS = 9;
    /** Type byte of {@link CleanCovered}. */
    int TYPE_CLEAN_COVERED = 10;
    /** The epoch of an extent whose write order was not recorded (type 1 records, type 2 checkpoint runs). */
    long EPOCH_NOT_RECORDED = 0;

    /** This record's type byte. */
    int type();

    /**
     * Backing range [startSector, startSector + lengthSectors) of volume {@code volumeId} is now cached at
     * {@code bucket}/{@code offsetInBucketSectors} under {@code generation}.
     *
     * <p>The CRC covers a span that may be wider than the extent (an extent split from a larger write keeps
     * the checksum of the whole write): the span starts {@code crcSpanStartSectors} sectors <em>before</em>
     * the extent's first sector in the bucket and is {@code crcSpanLengthSectors} long. A fresh write has
     * crcSpanStartSectors = 0 and crcSpanLengthSectors = lengthSectors.
     *
     * @param volumeId u16 volume id
     * @param startSector u64 first backing sector
     * @param lengthSectors u32 length, at least 1
     * @param bucket u32 cache bucket
     * @param offsetInBucketSectors u16 offset of the extent's first sector in the bucket
     * @param generation u16 bucket generation the data was written under
     * @param dirty true if the backing store does not yet hold this data
     * @param crc32c CRC32C of the checksummed span's bytes
     * @param crcSpanStartSectors u16 sectors between the span's start and the extent's start
     * @param crcSpanLengthSectors u16 length of the checksummed span
     * @param epoch u64 the flush epoch of a dirty extent's write on a volume that keeps epoch order (docs/FORMAT.md
     *     §5.2, docs/WRITEBACK.md "Epoch ordering"), at least 1; or {@link #EPOCH_NOT_RECORDED}. A record with an
     *     epoch is encoded as type 7, one without as type 1.
     */
    record ExtentInsert(int volumeId, long startSector, int lengthSectors, int bucket, int offsetInBucketSectors,
            int generation, boolean dirty, int crc32c, int crcSpanStartSectors, int crcSpanLengthSectors, long epoch)
            implements JournalRecord {
        public ExtentInsert {
            check(volumeId, startSector, lengthSectors, bucket, offsetInBucketSectors, generation, dirty,
                    crcSpanStartSectors, crcSpanLengthSectors, epoch);
        }

        /**
         * Checks the fields of an insert as this record's constructor does; for
         * {@link JournalRecordCodec#encodeInsert}, which encodes one without the record.
         *
         * @throws IllegalArgumentException if a field is out of range
         */
        static void check(int volumeId, long startSector, int lengthSectors, int bucket, int offsetInBucketSectors,
                          int generation, boolean dirty, int crcSpanStartSectors, int crcSpanLengthSectors,
                          long epoch) {
            ByteLayout.requireU16("volumeId", volumeId);
            ByteLayout.requireNonNegative("startSector", startSector);
            Checks.require(lengthSectors >= 1, "lengthSectors must be at least 1, got %d", lengthSectors);
            Checks.require(Long.MAX_VALUE - startSector >= lengthSectors,
                    "startSector + lengthSectors overflows: %d + %d", startSector, lengthSectors);
            ByteLayout.requireNonNegative("bucket", bucket);
            ByteLayout.requireU16("offsetInBucketSectors", offsetInBucketSectors);
            ByteLayout.requireU16("generation", generation);
            ByteLayout.requireU16("crcSpanStartSectors", crcSpanStartSectors);
            ByteLayout.requireU16("crcSpanLengthSectors", crcSpanLengthSectors);
            Checks.require(crcSpanStartSectors <= offsetInBucketSectors,
                    "crcSpanStartSectors %d reaches before the bucket start (offsetInBucketSectors %d)",
                    crcSpanStartSectors, offsetInBucketSectors);
            Checks.require((long) crcSpanStartSectors + lengthSectors <= crcSpanLengthSectors,
                    "checksummed span [-%d, +%d) does not cover the extent of %d sectors",
                    crcSpanStartSectors, crcSpanLengthSectors - crcSpanStartSectors, lengthSectors);
            ByteLayout.requireNonNegative("epoch", epoch);
            Checks.require(dirty || epoch == EPOCH_NOT_RECORDED, "a clean extent has no epoch, got %d", epoch);
        }

        /** An extent without a recorded epoch (type 1). */
        public ExtentInsert(int volumeId, long startSector, int lengthSectors, int bucket, int offsetInBucketSectors,
                            int generation, boolean dirty, int crc32c, int crcSpanStartSectors,
                            int crcSpanLengthSectors) {
            this(volumeId, startSector, lengthSectors, bucket, offsetInBucketSectors, generation, dirty, crc32c,
                    crcSpanStartSectors, crcSpanLengthSectors, EPOCH_NOT_RECORDED);
        }

        /** Whether this extent carries an epoch (and so is encoded as type 7, or in a type 3 checkpoint run). */
        public boolean hasEpoch() {
            return epoch != EPOCH_NOT_RECORDED;
        }

        @Override
        public int type() {
            return hasEpoch() ? TYPE_EXTENT_INSERT_EPOCH : TYPE_EXTENT_INSERT;
        }
    }

    /**
     * Backing range [startSector, startSector + lengthSectors) of volume {@code volumeId} is no longer cached.
     *
     * @param volumeId u16 @param startSector u64 @param lengthSectors u32, at least 1
     */
    record ExtentRemove(int volumeId, long startSector, int lengthSectors) implements JournalRecord {
        public ExtentRemove {
            ByteLayout.requireU16("volumeId", volumeId);
            ByteLayout.requireNonNegative("startSector", startSector);
            Checks.require(lengthSectors >= 1, "lengthSectors must be at least 1, got %d", lengthSectors);
        }

        @Override
        public int type() {
            return TYPE_EXTENT_REMOVE;
        }
    }

    /**
     * The extent at this exact location is now clean (its data is on the flushed backing store). Replay
     * applies it only if the index still maps the range to the same bucket, offset and generation.
     *
     * @param volumeId u16 @param startSector u64 @param lengthSectors u32, at least 1 @param bucket u32
     * @param offsetInBucketSectors u16 @param generation u16
     */
    record ExtentClean(int volumeId, long startSector, int lengthSectors, int bucket, int offsetInBucketSectors,
            int generation) implements JournalRecord {
        public ExtentClean {
            ByteLayout.requireU16("volumeId", volumeId);
            ByteLayout.requireNonNegative("startSector", startSector);
            Checks.require(lengthSectors >= 1, "lengthSectors must be at least 1, got %d", lengthSectors);
            ByteLayout.requireNonNegative("bucket", bucket);
            ByteLayout.requireU16("offsetInBucketSectors", offsetInBucketSectors);
            ByteLayout.requireU16("generation", generation);
        }

        @Override
        public int type() {
            return TYPE_EXTENT_CLEAN;
        }
    }

    /**
     * Bucket {@code bucket} now has generation {@code generation}: every key written under an older one is
     * stale. Durable before the bucket is rewritten.
     *
     * @param bucket u32 @param generation u16
     */
    record BucketGeneration(int bucket, int generation) implements JournalRecord {
        public BucketGeneration {
            ByteLayout.requireNonNegative("bucket", bucket);
            ByteLayout.requireU16("generation", generation);
        }

        @Override
        public int type() {
            return TYPE_BUCKET_GENERATION;
        }
    }

    /**
     * A checkpoint that started at journal sequence {@code checkpointStartSequence} is complete and durable.
     *
     * @param checkpointStartSequence u64 journal sequence where replay from this checkpoint starts
     * @param buckets the buckets holding its chunks, in chunk order, at most {@link #BUCKETS_MAX}
     * @param extentCount u64 extents in the checkpoint
     * @param checkpointCrc {@link CheckpointDigest} of its chunks
     */
    record CheckpointDone(long checkpointStartSequence, List<Integer> buckets, long extentCount, int checkpointCrc)
            implements JournalRecord {
        /** Bound on the bucket list: 8192 buckets of even the smallest size hold a 1 GiB checkpoint. */
        public static final int BUCKETS_MAX = 8192;

        public CheckpointDone {
            ByteLayout.requireNonNegative("checkpointStartSequence", checkpointStartSequence);
            buckets = List.copyOf(buckets);
            Checks.require(buckets.size() <= BUCKETS_MAX, "at most %d checkpoint buckets, got %d", BUCKETS_MAX,
                    buckets.size());
            for (int bucket : buckets) {
                ByteLayout.requireNonNegative("checkpoint bucket", bucket);
            }
            ByteLayout.requireNonNegative("extentCount", extentCount);
        }

        @Override
        public int type() {
            return TYPE_CHECKPOINT_DONE;
        }
    }

    /**
     * Every epoch recorded so far for volume {@code volumeId} (type 7 records and type 3 checkpoint runs before this
     * record) is void: the volume stopped following them (ordering switched off, or recovered epochs dropped), so its
     * backing device may from now on receive data in another order (docs/FORMAT.md §5.2, §7 rule 15). Recovery then
     * leaves that volume's dirty data without an epoch, and so of unknown order.
     *
     * @param volumeId u16 volume id
     */
    record EpochsVoid(int volumeId) implements JournalRecord {
        public EpochsVoid {
            ByteLayout.requireU16("volumeId", volumeId);
        }

        @Override
        public int type() {
            return TYPE_EPOCHS_VOID;
        }
    }

    /**
     * Every clean extent written into {@code bucket} under {@code generation} at bucket offsets below {@code
     * coveredSectors} is a copy of data a completed backing flush made durable (docs/FORMAT.md §7 rules 7 and 10):
     * after an unclean stop such an extent is trusted if the journal or the checkpoint still maps it. Replay keeps it
     * only while the bucket has that generation, and forgets it at every BucketGeneration record of the bucket.
     *
     * @param bucket u32 @param generation u16 @param coveredSectors u16, 1..16384 (at most the bucket)
     */
    record CleanCovered(int bucket, int generation, int coveredSectors) implements JournalRecord {
        /** The most a bucket holds: 8 MiB (docs/FORMAT.md §2). */
        public static final int COVERED_SECTORS_MAX = 16384;

        public CleanCovered {
            ByteLayout.requireNonNegative("bucket", bucket);
            ByteLayout.requireU16("generation", generation);
            Checks.require(coveredSectors >= 1 && coveredSectors <= COVERED_SECTORS_MAX,
                    "coveredSectors %d outside [1, %d]", coveredSectors, COVERED_SECTORS_MAX);
        }

        @Override
        public int type() {
            return TYPE_CLEAN_COVERED;
        }
    }

    /** The cache was shut down cleanly after this entry: nothing follows it in the journal. */
    record CleanShutdown() implements JournalRecord {
        @Override
        public int type() {
            return TYPE_CLEAN_SHUTDOWN;
        }
    }

    /**
     * The CRC32C of each of {@code crcs.length} whole 4 KiB blocks of {@code bucket}, from block {@code firstBlock} on,
     * as written under {@code generation} (docs/FORMAT.md §9): one write filled them, so a read inside a larger extent
     * can verify just the blocks it touches. Replay keeps them only while the bucket still has that generation.
     *
     * @param bucket u32 @param generation u16 @param firstBlock u16 block index in the bucket (4 KiB units)
     * @param crcs u32 each, 1..{@link #BLOCKS_MAX}, {@code firstBlock + crcs.length <= BLOCKS_MAX}
     */
    record BlockCrcs(int bucket, int generation, int firstBlock, int[] crcs) implements JournalRecord {
        /** Blocks in the largest bucket: offsets in a bucket are u16 sectors (32 MiB). */
        public static final int BLOCKS_MAX = 8192;

        public BlockCrcs {
            check(bucket, generation, firstBlock, crcs.length);
            crcs = crcs.clone();
        }

        /**
         * Checks the fields as the constructor does; for {@link JournalRecordCodec#encodeBlockCrcs}, which encodes one
         * without the record.
         *
         * @throws IllegalArgumentException if a field is out of range
         */
        static void check(int bucket, int generation, int firstBlock, int count) {
            ByteLayout.requireNonNegative("bucket", bucket);
            ByteLayout.requireU16("generation", generation);
            Checks.require(count >= 1 && firstBlock >= 0 && firstBlock + count <= BLOCKS_MAX,
                    "blocks [%d, +%d) outside [0, %d) or empty", firstBlock, count, BLOCKS_MAX);
        }

        /** A copy of the CRCs. */
        @Override
        public int[] crcs() {
            return crcs.clone();
        }

        /** How many blocks. */
        public int count() {
            return crcs.length;
        }

        /** The CRC of the {@code i}-th block (block {@code firstBlock + i}). */
        public int crc(int i) {
            return crcs[i];
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof BlockCrcs that && bucket == that.bucket && generation == that.generation
                    && firstBlock == that.firstBlock && java.util.Arrays.equals(crcs, that.crcs);
        }

        @Override
        public int hashCode() {
            return java.util.Objects.hash(bucket, generation, firstBlock, java.util.Arrays.hashCode(crcs));
        }

        @Override
        public String toString() {
            return "BlockCrcs[bucket=" + bucket + ", generation=" + generation + ", firstBlock=" + firstBlock
                    + ", count=" + crcs.length + "]";
        }

        @Override
        public int type() {
            return TYPE_BLOCK_CRCS;
        }
    }
}
