package io.blockcache.format;

import io.blockcache.loop.Checks;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.UUID;

/**
 * The commit block of a backing log (docs/FORMAT.md §4.4): its presence, valid, says that a group of records is
 * durable in the log and must be in place before the backing device stands for any state of the volume. Written
 * only after the group's body was flushed, with FUA; replaced by a zero block ("retired") once the records are in
 * place and flushed. So a torn commit write fails its CRC and the group counts as never logged, which is right:
 * nothing of it went in place before the commit was durable.
 *
 * <pre>
 *  BackingLogCommit: one 4 KiB block at byte 0 of the log, little-endian
 *   offset  size  field
 *        0     8  magic "BCLOGCMT"
 *        8     4  version (1)
 *       12    16  backingUuid      the backing header's: a commit left by an earlier format is not this one
 *       28     8  sequence         >= 1, +1 per group the engine logs on this device
 *       36     8  firstEpoch       the group holds whole flush epochs firstEpoch..lastEpoch of the volume
 *       44     8  lastEpoch        >= firstEpoch
 *       52     4  recordCount      >= 1
 *       56     8  dataBytes        record data, each record rounded up to 4 KiB
 *       64     4  bodyCrc          CRC32C of the body: [4096, 4096 + dataBytes + descriptor blocks * 4096)
 *       68  4024  zero
 *     4092     4  CRC32C of bytes [0, 4092)
 * </pre>
 *
 * @param backingUuid the backing device's identity
 * @param sequence the group's number on this device, at least 1
 * @param firstEpoch the oldest flush epoch in the group
 * @param lastEpoch the newest flush epoch in the group: replayed, the device holds the volume as of its end
 * @param recordCount records in the group, at least 1
 * @param dataBytes bytes of record data, a multiple of 4096
 * @param bodyCrc CRC32C of the body
 */
public record BackingLogCommit(UUID backingUuid, long sequence, long firstEpoch, long lastEpoch, int recordCount,
                               long dataBytes, int bodyCrc) {
    /** Encoded size: one 4 KiB block. */
    public static final int BYTES = BackingLogLayout.COMMIT_BYTES;

    static final byte[] MAGIC = ByteLayout.magic("BCLOGCMT");
    static final int OFFSET_BACKING_UUID = 12;
    static final int OFFSET_SEQUENCE = 28;
    static final int OFFSET_FIRST_EPOCH = 36;
    static final int OFFSET_LAST_EPOCH = 44;
    static final int OFFSET_RECORD_COUNT = 52;
    static final int OFFSET_DATA_BYTES = 56;
    static final int OFFSET_BODY_CRC = 64;
    static final int OFFSET_CRC = BYTES - Integer.BYTES;
    private static final String NAME = "backing log commit";

    /** Validates every field. */
    public BackingLogCommit {
        Objects.requireNonNull(backingUuid, "backingUuid");
        Checks.require(sequence >= 1, "sequence must be at least 1, got %d", sequence);
        Checks.require(firstEpoch >= 0 && lastEpoch >= firstEpoch, "epochs must satisfy 0 <= first <= last, got %d..%d",
                firstEpoch, lastEpoch);
        Checks.require(recordCount >= 1, "recordCount must be at least 1, got %d", recordCount);
        Checks.require(dataBytes >= (long) recordCount * ByteLayout.BLOCK_BYTES
                        && dataBytes % ByteLayout.BLOCK_BYTES == 0,
                "dataBytes must be a multiple of 4096 of at least 4096 per record, got %d for %d records", dataBytes,
                recordCount);
    }

    /** Bytes of the body this commit covers. */
    public long bodyBytes() {
        return BackingLogLayout.bodyBytes(recordCount, dataBytes);
    }

    /** Encodes this commit into a new 4 KiB block. */
    public byte[] encode() {
        byte[] bytes = new byte[BYTES];
        ByteBuffer buffer = BlockEnvelope.open(bytes, MAGIC);
        ByteLayout.putUuid(buffer, OFFSET_BACKING_UUID, backingUuid);
        buffer.putLong(OFFSET_SEQUENCE, sequence);
        buffer.putLong(OFFSET_FIRST_EPOCH, firstEpoch);
        buffer.putLong(OFFSET_LAST_EPOCH, lastEpoch);
        buffer.putInt(OFFSET_RECORD_COUNT, recordCount);
        buffer.putLong(OFFSET_DATA_BYTES, dataBytes);
        buffer.putInt(OFFSET_BODY_CRC, bodyCrc);
        return BlockEnvelope.seal(bytes, OFFSET_CRC);
    }

    /**
     * Decodes the block at {@code bytes[offsetBytes..]}; never throws on bad bytes. A retired log (a zero block) and
     * a torn commit both fail here, as {@code BAD_MAGIC} or {@code BAD_CRC}: either way there is no group to replay.
     */
    public static DecodeResult<BackingLogCommit> decode(byte[] bytes, int offsetBytes) {
        return BlockEnvelope.decode(bytes, offsetBytes, BYTES, MAGIC, OFFSET_CRC, NAME, OFFSET_SEQUENCE, reader -> {
            UUID backingUuid = reader.seek(OFFSET_BACKING_UUID).uuid("backingUuid");
            long sequence = reader.seek(OFFSET_SEQUENCE).u64("sequence");
            long firstEpoch = reader.seek(OFFSET_FIRST_EPOCH).u64("firstEpoch");
            long lastEpoch = reader.seek(OFFSET_LAST_EPOCH).u64("lastEpoch");
            int recordCount = reader.seek(OFFSET_RECORD_COUNT).u32AsInt("recordCount");
            long dataBytes = reader.seek(OFFSET_DATA_BYTES).u64("dataBytes");
            int bodyCrc = reader.seek(OFFSET_BODY_CRC).u32Bits("bodyCrc");
            return new BackingLogCommit(backingUuid, sequence, firstEpoch, lastEpoch, recordCount, dataBytes,
                    bodyCrc);
        });
    }
}
