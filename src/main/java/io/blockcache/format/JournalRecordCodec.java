package io.blockcache.format;

import io.blockcache.format.JournalRecord.BlockCrcs;
import io.blockcache.format.JournalRecord.BucketGeneration;
import io.blockcache.format.JournalRecord.CheckpointDone;
import io.blockcache.format.JournalRecord.CleanCovered;
import io.blockcache.format.JournalRecord.CleanShutdown;
import io.blockcache.format.JournalRecord.EpochsVoid;
import io.blockcache.format.JournalRecord.ExtentClean;
import io.blockcache.format.JournalRecord.ExtentInsert;
import io.blockcache.format.JournalRecord.ExtentRemove;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Bytes of the journal records. Each record is a type byte followed by fixed fields, little-endian, with
 * no padding between records:
 *
 * <pre>
 *  type 1 ExtentInsert      (32 B)  volumeId u16 | extent body (29 B, below)
 *  type 2 ExtentRemove      (15 B)  volumeId u16 | startSector u64 | lengthSectors u32
 *  type 3 ExtentClean       (23 B)  volumeId u16 | startSector u64 | lengthSectors u32 | bucket u32
 *                                   | offsetInBucketSectors u16 | generation u16
 *  type 4 BucketGeneration  ( 7 B)  bucket u32 | generation u16
 *  type 5 CheckpointDone (25+4n B)  checkpointStartSequence u64 | n u32 | n x bucket u32 | extentCount u64
 *                                   | checkpointCrc u32
 *  type 6 CleanShutdown     ( 1 B)  (no fields)
 *  type 7 ExtentInsert+epoch (40 B) volumeId u16 | extent body (29 B) | epoch u64 (>= 1; docs/FORMAT.md §5.2)
 *  type 8 EpochsVoid        ( 3 B)  volumeId u16 (the volume's recorded epochs no longer hold; §5.2)
 *  type 9 BlockCrcs    (11+4n B)  bucket u32 | generation u16 | firstBlock u16 | n u16 (1..8192) | n x crc32c u32
 *                                   (one per whole 4 KiB block of the bucket from firstBlock on; §9)
 *  type 10 CleanCovered     ( 9 B)  bucket u32 | generation u16 | coveredSectors u16 (1..16384; §7 rule 10)
 *
 *  extent body (29 B, shared with checkpoint extent runs)
 *   0               8             12            16        18      20  21          25       27       29
 *  +---------------+-------------+-------------+---------+-------+---+-----------+--------+--------+
 *  | startSector   | lengthSect. | bucket u32  | offsetIn| gener.|dty| crc32c u32| crcSpan| crcSpan|
 *  | u64           | u32         |             | Bucket  | u16   |u8 |           | Start  | Length |
 *  |               |             |             | Sect u16|       |   |           | u16    | u16    |
 *  +---------------+-------------+-------------+---------+-------+---+-----------+--------+--------+
 * </pre>
 */
public final class JournalRecordCodec {
    /** Size of the extent body shared by ExtentInsert and checkpoint extent runs. */
    public static final int EXTENT_BODY_BYTES = 29;
    /** Size of the epoch that follows the extent body in type 7 records and type 3 checkpoint runs. */
    public static final int EPOCH_BYTES = 8;
    /** Size of a {@link CleanCovered} record, and of one in a checkpoint coverage run without its type byte + 1. */
    public static final int CLEAN_COVERED_BYTES = 1 + 4 + 2 + 2;

    private JournalRecordCodec() {
    }

    /** Encoded size of {@code record} in bytes. */
    public static int encodedBytes(JournalRecord record) {
        return switch (record) {
            case ExtentInsert insert -> insertBytes(insert.hasEpoch());
            case ExtentRemove remove -> 1 + 2 + 8 + 4;
            case ExtentClean clean -> 1 + 2 + 8 + 4 + 4 + 2 + 2;
            case BucketGeneration generation -> 1 + 4 + 2;
            case CheckpointDone done -> checkpointDoneBytes(done.buckets().size());
            case CleanShutdown shutdown -> 1;
            case EpochsVoid epochsVoid -> 1 + 2;
            case BlockCrcs crcs -> blockCrcsBytes(crcs.count());
            case CleanCovered covered -> CLEAN_COVERED_BYTES;
        };
    }

    /** Encoded size of a CheckpointDone record naming {@code buckets} buckets. */
    public static int checkpointDoneBytes(int buckets) {
        return 1 + 8 + 4 + 4 * buckets + 8 + 4;
    }

    /** Encoded size of a block CRC record of {@code count} blocks. */
    public static int blockCrcsBytes(int count) {
        return 1 + 4 + 2 + 2 + 2 + 4 * count;
    }

    /**
     * Writes the block CRC record of {@code count} CRCs from {@code crcs[from]} at the buffer's position and advances
     * it, without the record object (a large front-end write appends one per extent).
     *
     * @throws IllegalArgumentException if a field is out of range, as the record's constructor would; then the buffer
     *     is unchanged
     */
    public static void encodeBlockCrcs(ByteBuffer buffer, int bucket, int generation, int firstBlock, int count,
                                       int[] crcs, int from) {
        BlockCrcs.check(bucket, generation, firstBlock, count);
        buffer.put((byte) JournalRecord.TYPE_BLOCK_CRCS);
        buffer.putInt(bucket);
        buffer.putShort((short) generation);
        buffer.putShort((short) firstBlock);
        buffer.putShort((short) count);
        for (int i = 0; i < count; i++) {
            buffer.putInt(crcs[from + i]);
        }
    }

    /** Encoded size of an insert record: type 7 with an epoch, type 1 without. */
    public static int insertBytes(boolean withEpoch) {
        return 1 + 2 + EXTENT_BODY_BYTES + (withEpoch ? EPOCH_BYTES : 0);
    }

    /**
     * Writes the insert record these fields make (what {@link #encode} writes for the {@link ExtentInsert} of the same
     * fields) at the buffer's position and advances it, without the record object: the journal appends one per
     * front-end write (nothing allocated per steady-state request on the loop thread).
     *
     * @throws IllegalArgumentException if a field is out of range, as the record's constructor would; then the
     *     buffer is unchanged
     */
    public static void encodeInsert(ByteBuffer buffer, int volumeId, long startSector, int lengthSectors, int bucket,
                                    int offsetInBucketSectors, int generation, boolean dirty, int crc32c,
                                    int crcSpanStartSectors, int crcSpanLengthSectors, long epoch) {
        ExtentInsert.check(volumeId, startSector, lengthSectors, bucket, offsetInBucketSectors, generation, dirty,
                crcSpanStartSectors, crcSpanLengthSectors, epoch);
        boolean withEpoch = epoch != JournalRecord.EPOCH_NOT_RECORDED;
        buffer.put((byte) (withEpoch ? JournalRecord.TYPE_EXTENT_INSERT_EPOCH : JournalRecord.TYPE_EXTENT_INSERT));
        buffer.putShort((short) volumeId);
        putExtentBody(buffer, startSector, lengthSectors, bucket, offsetInBucketSectors, generation, dirty, crc32c,
                crcSpanStartSectors, crcSpanLengthSectors);
        if (withEpoch) {
            buffer.putLong(epoch);
        }
    }

    /** Writes {@code record} at the buffer's position and advances it; the buffer must be little-endian. */
    public static void encode(JournalRecord record, ByteBuffer buffer) {
        if (record instanceof BlockCrcs crcs) {
            int[] values = crcs.crcs();
            encodeBlockCrcs(buffer, crcs.bucket(), crcs.generation(), crcs.firstBlock(), values.length, values, 0);
            return;
        }
        if (record instanceof ExtentInsert insert) {
            encodeInsert(buffer, insert.volumeId(), insert.startSector(), insert.lengthSectors(), insert.bucket(),
                    insert.offsetInBucketSectors(), insert.generation(), insert.dirty(), insert.crc32c(),
                    insert.crcSpanStartSectors(), insert.crcSpanLengthSectors(), insert.epoch());
            return;
        }
        buffer.put((byte) record.type());
        switch (record) {
            case ExtentInsert insert -> throw new IllegalStateException("encoded above");
            case BlockCrcs crcs -> throw new IllegalStateException("encoded above");
            case ExtentRemove remove -> {
                buffer.putShort((short) remove.volumeId());
                buffer.putLong(remove.startSector());
                buffer.putInt(remove.lengthSectors());
            }
            case ExtentClean clean -> {
                buffer.putShort((short) clean.volumeId());
                buffer.putLong(clean.startSector());
                buffer.putInt(clean.lengthSectors());
                buffer.putInt(clean.bucket());
                buffer.putShort((short) clean.offsetInBucketSectors());
                buffer.putShort((short) clean.generation());
            }
            case BucketGeneration generation -> {
                buffer.putInt(generation.bucket());
                buffer.putShort((short) generation.generation());
            }
            case CheckpointDone done -> {
                buffer.putLong(done.checkpointStartSequence());
                buffer.putInt(done.buckets().size());
                for (int bucket : done.buckets()) {
                    buffer.putInt(bucket);
                }
                buffer.putLong(done.extentCount());
                buffer.putInt(done.checkpointCrc());
            }
            case CleanShutdown shutdown -> {
                // Type byte only.
            }
            case EpochsVoid epochsVoid -> buffer.putShort((short) epochsVoid.volumeId());
            case CleanCovered covered -> putCleanCovered(covered, buffer);
        }
    }

    /** Writes the 29-byte extent body of {@code insert} (everything but the type byte and volumeId). */
    static void putExtentBody(ExtentInsert insert, ByteBuffer buffer) {
        putExtentBody(buffer, insert.startSector(), insert.lengthSectors(), insert.bucket(),
                insert.offsetInBucketSectors(), insert.generation(), insert.dirty(), insert.crc32c(),
                insert.crcSpanStartSectors(), insert.crcSpanLengthSectors());
    }

    private static void putExtentBody(ByteBuffer buffer, long startSector, int lengthSectors, int bucket,
                                      int offsetInBucketSectors, int generation, boolean dirty, int crc32c,
                                      int crcSpanStartSectors, int crcSpanLengthSectors) {
        buffer.putLong(startSector);
        buffer.putInt(lengthSectors);
        buffer.putInt(bucket);
        buffer.putShort((short) offsetInBucketSectors);
        buffer.putShort((short) generation);
        buffer.put((byte) (dirty ? 1 : 0));
        buffer.putInt(crc32c);
        buffer.putShort((short) crcSpanStartSectors);
        buffer.putShort((short) crcSpanLengthSectors);
    }

    /**
     * Reads an extent body for volume {@code volumeId}, followed by its epoch if {@code withEpoch} (type 7 records,
     * type 3 checkpoint runs); field values the format forbids are errors.
     */
    static ExtentInsert readExtentBody(FieldReader reader, int volumeId, boolean withEpoch)
            throws MalformedException {
        int start = reader.position();
        long startSector = reader.u64("startSector");
        int lengthSectors = reader.u32AsInt("lengthSectors");
        int bucket = reader.u32AsInt("bucket");
        int offsetInBucketSectors = reader.u16("offsetInBucketSectors");
        int generation = reader.u16("generation");
        int dirty = reader.u8("dirty");
        if (dirty > 1) {
            throw reader.invalid("dirty", 1, "0 or 1", dirty);
        }
        int crc32c = reader.u32Bits("crc32c");
        int crcSpanStartSectors = reader.u16("crcSpanStartSectors");
        int crcSpanLengthSectors = reader.u16("crcSpanLengthSectors");
        long epoch = JournalRecord.EPOCH_NOT_RECORDED;
        if (withEpoch) {
            epoch = reader.u64("epoch");
            if (epoch < 1 || dirty != 1) {
                throw reader.invalid("epoch", EPOCH_BYTES, "at least 1, on a dirty extent", epoch);
            }
        }
        try {
            return new ExtentInsert(volumeId, startSector, lengthSectors, bucket, offsetInBucketSectors, generation,
                    dirty == 1, crc32c, crcSpanStartSectors, crcSpanLengthSectors, epoch);
        } catch (IllegalArgumentException e) {
            throw reader.fail(DecodeError.Kind.BAD_FIELD, start, "extent: " + e.getMessage());
        }
    }

    /**
     * Reads one record at the reader's position. An unknown type byte is an error naming the type and its
     * offset; so is a field out of range or a record cut off by the end of the records area.
     */
    static JournalRecord read(FieldReader reader) throws MalformedException {
        int start = reader.position();
        int type = reader.u8("record type");
        try {
            return switch (type) {
                case JournalRecord.TYPE_EXTENT_INSERT -> readExtentBody(reader, reader.u16("volumeId"), false);
                case JournalRecord.TYPE_EXTENT_INSERT_EPOCH -> readExtentBody(reader, reader.u16("volumeId"), true);
                case JournalRecord.TYPE_EXTENT_REMOVE ->
                        new ExtentRemove(reader.u16("volumeId"), reader.u64("startSector"),
                                reader.u32AsInt("lengthSectors"));
                case JournalRecord.TYPE_EXTENT_CLEAN ->
                        new ExtentClean(reader.u16("volumeId"), reader.u64("startSector"),
                                reader.u32AsInt("lengthSectors"), reader.u32AsInt("bucket"),
                                reader.u16("offsetInBucketSectors"), reader.u16("generation"));
                case JournalRecord.TYPE_BUCKET_GENERATION ->
                        new BucketGeneration(reader.u32AsInt("bucket"), reader.u16("generation"));
                case JournalRecord.TYPE_CHECKPOINT_DONE -> readCheckpointDone(reader);
                case JournalRecord.TYPE_CLEAN_SHUTDOWN -> new CleanShutdown();
                case JournalRecord.TYPE_EPOCHS_VOID -> new EpochsVoid(reader.u16("volumeId"));
                case JournalRecord.TYPE_BLOCK_CRCS -> readBlockCrcs(reader);
                case JournalRecord.TYPE_CLEAN_COVERED -> readCleanCovered(reader);
                default -> throw reader.fail(DecodeError.Kind.UNKNOWN_TYPE, start,
                        "unknown journal record type " + type);
            };
        } catch (IllegalArgumentException e) {
            throw reader.fail(DecodeError.Kind.BAD_FIELD, start, "record type " + type + ": " + e.getMessage());
        }
    }

    /** Reads the fields of a CleanCovered record after its type byte (also one entry of a checkpoint coverage run). */
    static CleanCovered readCleanCovered(FieldReader reader) throws MalformedException {
        return new CleanCovered(reader.u32AsInt("bucket"), reader.u16("generation"), reader.u16("coveredSectors"));
    }

    /** Writes the fields of {@code covered} without its type byte. */
    static void putCleanCovered(CleanCovered covered, ByteBuffer buffer) {
        buffer.putInt(covered.bucket());
        buffer.putShort((short) covered.generation());
        buffer.putShort((short) covered.coveredSectors());
    }

    /**
     * Reads the fields of a block CRC record or checkpoint item after its type byte (the same bytes in both: §5.2,
     * §6).
     */
    static BlockCrcs readBlockCrcs(FieldReader reader) throws MalformedException {
        int bucket = reader.u32AsInt("bucket");
        int generation = reader.u16("generation");
        int firstBlock = reader.u16("firstBlock");
        int count = reader.u16("block count");
        if (count < 1 || count * 4L > reader.remaining()) {
            throw reader.invalid("block count", 2, "1.." + reader.remaining() / 4 + " (bytes left)", count);
        }
        int[] crcs = new int[count];
        for (int i = 0; i < count; i++) {
            crcs[i] = reader.u32Bits("crc32c");
        }
        return new BlockCrcs(bucket, generation, firstBlock, crcs);
    }

    private static CheckpointDone readCheckpointDone(FieldReader reader) throws MalformedException {
        long startSequence = reader.u64("checkpointStartSequence");
        int count = reader.u32AsInt("checkpoint bucket count");
        if (count > CheckpointDone.BUCKETS_MAX) {
            throw reader.invalid("checkpoint bucket count", 4, "at most " + CheckpointDone.BUCKETS_MAX, count);
        }
        List<Integer> buckets = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            buckets.add(reader.u32AsInt("checkpoint bucket " + i));
        }
        return new CheckpointDone(startSequence, buckets, reader.u64("extentCount"), reader.u32Bits("checkpointCrc"));
    }
}
