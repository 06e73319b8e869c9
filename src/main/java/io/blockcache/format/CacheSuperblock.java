package io.blockcache.format;

import io.blockcache.loop.Checks;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;

/**
 * The cache device's superblock: identity, geometry, journal location and attached backing devices. Two
 * copies live on the device (A at byte 0, B at byte 4096); {@link SuperblockPair} chooses between them.
 *
 * <pre>
 *  CacheSuperblock: one 4 KiB block, little-endian
 *   offset  size  field
 *        0     8  magic "BCACHESB"
 *        8     4  version (1)
 *       12     8  sequence            bumped on every rewrite; the valid copy with the higher one wins
 *       20    16  cacheSetUuid
 *       36     4  logicalBlockBytes   512..4096, power of two
 *       40     4  bucketSizeBytes     128 KiB..8 MiB, power of two
 *       44     4  bucketCount
 *       48     8  dataStartBytes      byte offset of bucket 0
 *       56     4  journalFirstBucket
 *       60     4  journalBuckets      the journal ring: buckets [first, first + count)
 *       64     4  flags               bit 0 = clean shutdown; other bits zero
 *       68     4  backingCount        0..16
 *       72  1568  16 slots of 98 bytes ({@link AttachedBacking}); unused slots all zero
 *     1640   128  16 fingerprints, u64 each, of the slots in order (0 unless the backing is cached in place)
 *     1768  2304  16 location records of 144 bytes, of the slots in order: mode u8, length u8, location UTF-8
 *                 (all zero unless the volume was added live: docs/FORMAT.md §3 "Volumes attached and detached live")
 *     4072    20  zero
 *     4092     4  CRC32C of bytes [0, 4092)
 * </pre>
 *
 * @param sequence rewrite counter, at least 1
 * @param cacheSetUuid identity of the cache set
 * @param logicalBlockBytes smallest I/O unit the volumes expose
 * @param bucketSizeBytes bucket size
 * @param bucketCount number of buckets (journal included)
 * @param dataStartBytes byte offset of bucket 0 on the cache device
 * @param journalFirstBucket first bucket of the journal ring
 * @param journalBuckets number of buckets in the journal ring, at least 1
 * @param flags {@link #FLAG_CLEAN_SHUTDOWN} or 0
 * @param backings attached backing devices, at most 16, distinct uuids and volume ids
 */
public record CacheSuperblock(long sequence, UUID cacheSetUuid, int logicalBlockBytes, int bucketSizeBytes,
        int bucketCount, long dataStartBytes, int journalFirstBucket, int journalBuckets, int flags,
        List<AttachedBacking> backings) {
    /** Encoded size: one 4 KiB block. */
    public static final int BYTES = ByteLayout.BLOCK_BYTES;
    /** Flag bit 0: the cache was shut down cleanly (journal fully applied, nothing to replay beyond it). */
    public static final int FLAG_CLEAN_SHUTDOWN = 1;
    /** At most this many backing devices per cache set: fixes the superblock size. */
    public static final int BACKINGS_MAX = 16;
    /** Smallest bucket (bcache's range): below it the per-bucket metadata dominates. */
    public static final int BUCKET_SIZE_BYTES_MIN = 128 * 1024;
    /** Largest bucket: above it GC moves too much live data to free one bucket. */
    public static final int BUCKET_SIZE_BYTES_MAX = 8 * 1024 * 1024;
    /** Default bucket size. */
    public static final int BUCKET_SIZE_BYTES_DEFAULT = 1024 * 1024;
    /** Default start of bucket 0: leaves room after both superblock copies and keeps buckets 1 MiB aligned. */
    public static final long DATA_START_BYTES_DEFAULT = 1024 * 1024;

    static final byte[] MAGIC = ByteLayout.magic("BCACHESB");
    static final int OFFSET_SEQUENCE = 12;
    static final int OFFSET_CACHE_SET_UUID = 20;
    static final int OFFSET_LOGICAL_BLOCK = 36;
    static final int OFFSET_BUCKET_SIZE = 40;
    static final int OFFSET_BUCKET_COUNT = 44;
    static final int OFFSET_DATA_START = 48;
    static final int OFFSET_JOURNAL_FIRST_BUCKET = 56;
    static final int OFFSET_JOURNAL_BUCKETS = 60;
    static final int OFFSET_FLAGS = 64;
    static final int OFFSET_BACKING_COUNT = 68;
    static final int OFFSET_SLOTS = 72;
    static final int OFFSET_FINGERPRINTS = OFFSET_SLOTS + BACKINGS_MAX * AttachedBacking.SLOT_BYTES;
    static final int OFFSET_LOCATIONS = OFFSET_FINGERPRINTS + BACKINGS_MAX * Long.BYTES;
    static final int OFFSET_CRC = BYTES - Integer.BYTES;
    private static final String NAME = "cache superblock";

    /** Validates every field and every relation between fields. */
    public CacheSuperblock {
        Objects.requireNonNull(cacheSetUuid, "cacheSetUuid");
        backings = List.copyOf(backings);
        Checks.require(sequence >= 1, "sequence must be at least 1, got %d", sequence);
        Checks.require(ByteLayout.isPowerOfTwo(logicalBlockBytes) && logicalBlockBytes >= ByteLayout.SECTOR_BYTES
                && logicalBlockBytes <= ByteLayout.BLOCK_BYTES,
                "logicalBlockBytes must be a power of two in [512, 4096], got %d", logicalBlockBytes);
        Checks.require(ByteLayout.isPowerOfTwo(bucketSizeBytes) && bucketSizeBytes >= BUCKET_SIZE_BYTES_MIN
                && bucketSizeBytes <= BUCKET_SIZE_BYTES_MAX,
                "bucketSizeBytes must be a power of two in [%d, %d], got %d",
                BUCKET_SIZE_BYTES_MIN, BUCKET_SIZE_BYTES_MAX, bucketSizeBytes);
        Checks.require(dataStartBytes >= 2L * BYTES && dataStartBytes % ByteLayout.BLOCK_BYTES == 0,
                "dataStartBytes must be a multiple of 4096 past both superblock copies (>= 8192), got %d",
                dataStartBytes);
        Checks.require(journalBuckets >= 1, "journalBuckets must be at least 1, got %d", journalBuckets);
        Checks.require(journalFirstBucket >= 0 && (long) journalFirstBucket + journalBuckets < bucketCount,
                "journal buckets [%d, %d) must lie inside bucketCount %d and leave at least one data bucket",
                journalFirstBucket, (long) journalFirstBucket + journalBuckets, bucketCount);
        Checks.require((flags & ~FLAG_CLEAN_SHUTDOWN) == 0, "flags has unknown bits: 0x%08x", flags);
        Checks.require(backings.size() <= BACKINGS_MAX, "at most %d backing devices, got %d", BACKINGS_MAX,
                backings.size());
        Set<UUID> uuids = new HashSet<>();
        Set<Integer> volumeIds = new HashSet<>();
        for (AttachedBacking backing : backings) {
            Checks.require(uuids.add(backing.backingUuid()), "backing uuid %s appears twice",
                    backing.backingUuid());
            Checks.require(volumeIds.add(backing.volumeId()), "volume id %d appears twice", backing.volumeId());
        }
    }

    /** Returns true if {@link #FLAG_CLEAN_SHUTDOWN} is set. */
    public boolean cleanShutdown() {
        return (flags & FLAG_CLEAN_SHUTDOWN) != 0;
    }

    /** Byte offset of bucket {@code bucket} on the cache device. */
    public long bucketOffsetBytes(int bucket) {
        Checks.require(bucket >= 0 && bucket < bucketCount, "bucket %d outside [0, %d)", bucket, bucketCount);
        return dataStartBytes + (long) bucket * bucketSizeBytes;
    }

    /** Size of the cache device this geometry needs, in bytes. */
    public long deviceBytesMin() {
        return dataStartBytes + (long) bucketCount * bucketSizeBytes;
    }

    /** Returns this superblock with the sequence bumped by one: every rewrite goes through here. */
    public CacheSuperblock next(int newFlags, List<AttachedBacking> newBackings) {
        return new CacheSuperblock(sequence + 1, cacheSetUuid, logicalBlockBytes, bucketSizeBytes, bucketCount,
                dataStartBytes, journalFirstBucket, journalBuckets, newFlags, newBackings);
    }

    /**
     * Returns this superblock with {@code newBucketCount} buckets and the sequence bumped by one: the commit point of
     * a cache device grown before open (docs/FORMAT.md §3).
     */
    public CacheSuperblock grownTo(int newBucketCount) {
        return new CacheSuperblock(sequence + 1, cacheSetUuid, logicalBlockBytes, bucketSizeBytes, newBucketCount,
                dataStartBytes, journalFirstBucket, journalBuckets, flags, backings);
    }

    /** Encodes this superblock into a new 4 KiB block. */
    public byte[] encode() {
        byte[] bytes = new byte[BYTES];
        ByteBuffer buffer = BlockEnvelope.open(bytes, MAGIC);
        buffer.putLong(OFFSET_SEQUENCE, sequence);
        ByteLayout.putUuid(buffer, OFFSET_CACHE_SET_UUID, cacheSetUuid);
        buffer.putInt(OFFSET_LOGICAL_BLOCK, logicalBlockBytes);
        buffer.putInt(OFFSET_BUCKET_SIZE, bucketSizeBytes);
        buffer.putInt(OFFSET_BUCKET_COUNT, bucketCount);
        buffer.putLong(OFFSET_DATA_START, dataStartBytes);
        buffer.putInt(OFFSET_JOURNAL_FIRST_BUCKET, journalFirstBucket);
        buffer.putInt(OFFSET_JOURNAL_BUCKETS, journalBuckets);
        buffer.putInt(OFFSET_FLAGS, flags);
        buffer.putInt(OFFSET_BACKING_COUNT, backings.size());
        for (int i = 0; i < backings.size(); i++) {
            backings.get(i).encode(buffer, OFFSET_SLOTS + i * AttachedBacking.SLOT_BYTES);
            buffer.putLong(OFFSET_FINGERPRINTS + i * Long.BYTES, backings.get(i).fingerprint());
            backings.get(i).encodeLocation(buffer, OFFSET_LOCATIONS + i * AttachedBacking.LOCATION_RECORD_BYTES);
        }
        return BlockEnvelope.seal(bytes, OFFSET_CRC);
    }

    /** Decodes the block at {@code bytes[offsetBytes..]}; never throws on bad bytes. */
    public static DecodeResult<CacheSuperblock> decode(byte[] bytes, int offsetBytes) {
        return decode(bytes, offsetBytes, true);
    }

    /**
     * Decodes the block at {@code bytes[offsetBytes..]} without checking its CRC: magic, version and every field
     * are still checked. For salvage only, when neither copy verifies (docs/OPERATIONS.md "Salvage"): a copy whose
     * CRC fails but whose fields are all valid is the best evidence of the geometry left. Never throws on bad bytes.
     */
    public static DecodeResult<CacheSuperblock> decodeIgnoringCrc(byte[] bytes, int offsetBytes) {
        return decode(bytes, offsetBytes, false);
    }

    private static DecodeResult<CacheSuperblock> decode(byte[] bytes, int offsetBytes, boolean verifyCrc) {
        return BlockEnvelope.decode(bytes, offsetBytes, BYTES, MAGIC, OFFSET_CRC, NAME, OFFSET_SEQUENCE, verifyCrc,
                reader -> {
            long sequence = reader.seek(OFFSET_SEQUENCE).u64("sequence");
            UUID cacheSetUuid = reader.seek(OFFSET_CACHE_SET_UUID).uuid("cacheSetUuid");
            int logicalBlockBytes = reader.seek(OFFSET_LOGICAL_BLOCK).u32AsInt("logicalBlockBytes");
            int bucketSizeBytes = reader.seek(OFFSET_BUCKET_SIZE).u32AsInt("bucketSizeBytes");
            int bucketCount = reader.seek(OFFSET_BUCKET_COUNT).u32AsInt("bucketCount");
            long dataStartBytes = reader.seek(OFFSET_DATA_START).u64("dataStartBytes");
            int journalFirstBucket = reader.seek(OFFSET_JOURNAL_FIRST_BUCKET).u32AsInt("journalFirstBucket");
            int journalBuckets = reader.seek(OFFSET_JOURNAL_BUCKETS).u32AsInt("journalBuckets");
            int flags = reader.seek(OFFSET_FLAGS).u32Bits("flags");
            int backingCount = reader.seek(OFFSET_BACKING_COUNT).u32AsInt("backingCount");
            if (backingCount > BACKINGS_MAX) {
                throw reader.invalid("backingCount", 4, "at most " + BACKINGS_MAX, backingCount);
            }
            List<AttachedBacking> backings = new ArrayList<>(backingCount);
            for (int i = 0; i < backingCount; i++) {
                long fingerprint = reader.seek(OFFSET_FINGERPRINTS + i * Long.BYTES).u64Bits("fingerprint[" + i + "]");
                reader.seek(OFFSET_SLOTS + i * AttachedBacking.SLOT_BYTES);
                AttachedBacking slot = AttachedBacking.decode(reader, i, fingerprint);
                int location = OFFSET_LOCATIONS + i * AttachedBacking.LOCATION_RECORD_BYTES;
                backings.add(slot.decodeLocation(reader.seek(location), i));
            }
            return new CacheSuperblock(sequence, cacheSetUuid, logicalBlockBytes,
                    bucketSizeBytes, bucketCount, dataStartBytes, journalFirstBucket, journalBuckets, flags,
                    backings);
        });
    }
}
