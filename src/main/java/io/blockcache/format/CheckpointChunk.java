package io.blockcache.format;

import io.blockcache.format.CheckpointItem.ExtentRun;
import io.blockcache.format.CheckpointItem.GenerationSlice;
import io.blockcache.format.JournalRecord.ExtentInsert;
import java.util.ArrayList;
import java.util.List;

/**
 * One chunk of a checkpoint, written into an ordinary bucket; {@link CheckpointEncoder} produces them. Items
 * are packed back to back after the header; the chunk is padded to 4 KiB and the CRC covers all of it.
 *
 * <pre>
 *  CheckpointChunk: chunkBytes = roundUp4K(40 + payloadBytes), little-endian
 *   offset  size  field
 *        0     8  magic "BCCHECKP"
 *        8     4  version (1)
 *       12     4  chunkCrc                  CRC32C of [0, chunkBytes) with this field zero
 *       16     8  checkpointStartSequence   journal sequence this checkpoint is consistent with
 *       24     4  chunkIndex                0, 1, 2, ... within the checkpoint
 *       28     4  payloadBytes
 *       32     4  itemCount
 *       36     4  zero
 *       40     .  items, back to back:
 *                   type 1 generation slice: type u8 | firstBucket u32 | count u32 | count x generation u16
 *                   type 2 extent run:       type u8 | volumeId u16 | count u32 | count x extent body (29 B)
 *                   type 3 extent run with epochs: as type 2, each extent body followed by epoch u64 (0: none)
 *                   type 4 block CRC run:    type u8 | bucket u32 | generation u16 | firstBlock u16 | count u16
 *                                            | count x crc32c u32 (journal record type 9's fields)
 *        .     .  zero padding up to chunkBytes
 * </pre>
 *
 * @param checkpointStartSequence journal sequence of the checkpoint
 * @param chunkIndex position of this chunk in the checkpoint
 * @param chunkBytes encoded size including padding
 * @param chunkCrc the stored CRC (feeds {@link CheckpointDigest})
 * @param items the packed items in order
 */
public record CheckpointChunk(long checkpointStartSequence, int chunkIndex, int chunkBytes, int chunkCrc,
        List<CheckpointItem> items) {
    /** Size of the fixed header. */
    public static final int HEADER_BYTES = 40;

    static final byte[] MAGIC = ByteLayout.magic("BCCHECKP");
    static final int OFFSET_CRC = 12;
    static final int OFFSET_START_SEQUENCE = 16;
    static final int OFFSET_CHUNK_INDEX = 24;
    static final int OFFSET_PAYLOAD_BYTES = 28;
    static final int OFFSET_ITEM_COUNT = 32;
    private static final String NAME = "checkpoint chunk";

    public CheckpointChunk {
        items = List.copyOf(items);
    }

    /**
     * Decodes and verifies the chunk at {@code bytes[offsetBytes..]}; never throws on bad bytes. Error offsets
     * are relative to {@code offsetBytes}.
     */
    public static DecodeResult<CheckpointChunk> decode(byte[] bytes, int offsetBytes) {
        int availableBytes = bytes.length - offsetBytes;
        if (availableBytes < HEADER_BYTES) {
            return DecodeResult.failed(new DecodeError(DecodeError.Kind.TRUNCATED, 0, NAME + ": need "
                    + HEADER_BYTES + " header bytes, found " + availableBytes));
        }
        DecodeError header = ByteLayout.checkMagicAndVersion(bytes, offsetBytes, MAGIC, NAME);
        if (header != null) {
            return DecodeResult.failed(header);
        }
        int payloadBytes = ByteLayout.littleEndian(bytes).getInt(offsetBytes + OFFSET_PAYLOAD_BYTES);
        if (payloadBytes < 0 || payloadBytes > availableBytes - HEADER_BYTES) {
            return DecodeResult.failed(new DecodeError(DecodeError.Kind.TRUNCATED, OFFSET_PAYLOAD_BYTES, NAME
                    + ": payloadBytes " + Integer.toUnsignedString(payloadBytes) + " exceeds the "
                    + (availableBytes - HEADER_BYTES) + " bytes available"));
        }
        int chunkBytes = (int) ByteLayout.roundUpToBlock(HEADER_BYTES + (long) payloadBytes);
        DecodeError envelope = ByteLayout.checkEnvelope(bytes, offsetBytes, availableBytes, chunkBytes, MAGIC,
                OFFSET_CRC, NAME);
        if (envelope != null) {
            return DecodeResult.failed(envelope);
        }
        FieldReader reader = new FieldReader(bytes, offsetBytes, HEADER_BYTES + payloadBytes, NAME);
        try {
            int chunkCrc = reader.seek(OFFSET_CRC).u32Bits("chunkCrc");
            long startSequence = reader.seek(OFFSET_START_SEQUENCE).u64("checkpointStartSequence");
            int chunkIndex = reader.seek(OFFSET_CHUNK_INDEX).u32AsInt("chunkIndex");
            int itemCount = reader.seek(OFFSET_ITEM_COUNT).u32AsInt("itemCount");
            List<CheckpointItem> items = new ArrayList<>(Math.min(itemCount, payloadBytes));
            reader.seek(HEADER_BYTES);
            for (int i = 0; i < itemCount; i++) {
                items.add(readItem(reader));
            }
            if (reader.remaining() != 0) {
                throw reader.fail(DecodeError.Kind.BAD_FIELD, reader.position(), itemCount + " items end at byte "
                        + reader.position() + " but payloadBytes says " + (HEADER_BYTES + payloadBytes));
            }
            return DecodeResult.ok(new CheckpointChunk(startSequence, chunkIndex, chunkBytes, chunkCrc, items));
        } catch (MalformedException e) {
            return DecodeResult.failed(e.error());
        }
    }

    private static CheckpointItem readItem(FieldReader reader) throws MalformedException {
        int start = reader.position();
        int type = reader.u8("item type");
        try {
            switch (type) {
                case CheckpointItem.TYPE_GENERATION_SLICE -> {
                    int firstBucket = reader.u32AsInt("firstBucket");
                    int count = reader.u32AsInt("generation count");
                    checkCount(reader, count, 2, "generation count");
                    List<Integer> generations = new ArrayList<>(count);
                    for (int i = 0; i < count; i++) {
                        generations.add(reader.u16("generation"));
                    }
                    return new GenerationSlice(firstBucket, generations);
                }
                case CheckpointItem.TYPE_EXTENT_RUN, CheckpointItem.TYPE_EXTENT_RUN_EPOCHS -> {
                    boolean withEpochs = type == CheckpointItem.TYPE_EXTENT_RUN_EPOCHS;
                    int volumeId = reader.u16("volumeId");
                    int count = reader.u32AsInt("extent count");
                    checkCount(reader, count, JournalRecordCodec.EXTENT_BODY_BYTES
                            + (withEpochs ? JournalRecordCodec.EPOCH_BYTES : 0), "extent count");
                    List<ExtentInsert> extents = new ArrayList<>(count);
                    for (int i = 0; i < count; i++) {
                        extents.add(withEpochs ? readEpochExtent(reader, volumeId)
                                : JournalRecordCodec.readExtentBody(reader, volumeId, false));
                    }
                    return new ExtentRun(volumeId, extents);
                }
                case CheckpointItem.TYPE_BLOCK_CRC_RUN -> {
                    return new CheckpointItem.BlockCrcRun(JournalRecordCodec.readBlockCrcs(reader));
                }
                case CheckpointItem.TYPE_COVERAGE_RUN -> {
                    int count = reader.u32AsInt("coverage count");
                    checkCount(reader, count, JournalRecordCodec.CLEAN_COVERED_BYTES - 1, "coverage count");
                    List<JournalRecord.CleanCovered> covered = new ArrayList<>(count);
                    for (int i = 0; i < count; i++) {
                        covered.add(JournalRecordCodec.readCleanCovered(reader));
                    }
                    return new CheckpointItem.CoverageRun(covered);
                }
                default -> throw reader.fail(DecodeError.Kind.UNKNOWN_TYPE, start, "unknown checkpoint item type "
                        + type);
            }
        } catch (IllegalArgumentException e) {
            throw reader.fail(DecodeError.Kind.BAD_FIELD, start, "item type " + type + ": " + e.getMessage());
        }
    }

    /** An extent body and its epoch in a type 3 run: epoch 0 means none (a clean extent, or order unknown). */
    private static ExtentInsert readEpochExtent(FieldReader reader, int volumeId) throws MalformedException {
        int start = reader.position();
        ExtentInsert body = JournalRecordCodec.readExtentBody(reader, volumeId, false);
        long epoch = reader.u64("epoch");
        if (epoch < 0 || (epoch != 0 && !body.dirty())) {
            throw reader.invalid("epoch", JournalRecordCodec.EPOCH_BYTES, "0, or at least 1 on a dirty extent", epoch);
        }
        try {
            return new ExtentInsert(volumeId, body.startSector(), body.lengthSectors(), body.bucket(),
                    body.offsetInBucketSectors(), body.generation(), body.dirty(), body.crc32c(),
                    body.crcSpanStartSectors(), body.crcSpanLengthSectors(), epoch);
        } catch (IllegalArgumentException e) {
            throw reader.fail(DecodeError.Kind.BAD_FIELD, start, "extent: " + e.getMessage());
        }
    }

    private static void checkCount(FieldReader reader, int count, int itemBytes, String field)
            throws MalformedException {
        if (count < 1 || (long) count * itemBytes > reader.remaining()) {
            throw reader.invalid(field, 4, "1.." + reader.remaining() / itemBytes + " (bytes left)", count);
        }
    }
}
