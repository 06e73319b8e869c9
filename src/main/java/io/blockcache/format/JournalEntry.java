package io.blockcache.format;

import io.blockcache.loop.Checks;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One journal entry: a header and records, padded to whole 4 KiB blocks and written with one device write.
 * The entry CRC covers the whole padded entry with the CRC field read as zero, so a torn write of any
 * 512-byte sector is detected; {@code previousEntryCrc} chains each entry to the one before it.
 *
 * <pre>
 *  JournalEntry: entryBytes (a multiple of 4096) at a 4 KiB-aligned ring offset, little-endian
 *   offset  size  field
 *        0     8  magic "BCJOURNL"
 *        8     4  version (1)
 *       12     4  entryCrc            CRC32C of [0, entryBytes) with this field zero
 *       16     8  sequence            previous entry's sequence + 1; the first entry ever is 1
 *       24     8  checkpointSequence  where the newest durable checkpoint starts (0 = none yet)
 *       32     4  previousEntryCrc    entryCrc of entry sequence - 1 (0 for sequence 1)
 *       36     4  entryBytes          4096..bucketSizeBytes, multiple of 4096
 *       40     4  recordCount
 *       44     4  recordsBytes        bytes of records that follow
 *       48     .  records ({@link JournalRecordCodec}), back to back
 *        .     .  zero padding up to entryBytes
 * </pre>
 *
 * @param sequence this entry's sequence, at least 1
 * @param checkpointSequence start sequence of the newest durable checkpoint when it was written
 * @param previousEntryCrc CRC of the previous entry (hash chain)
 * @param entryBytes encoded size including padding
 * @param entryCrc this entry's CRC
 * @param records the index updates, in order
 */
public record JournalEntry(long sequence, long checkpointSequence, int previousEntryCrc, int entryBytes,
        int entryCrc, List<JournalRecord> records) {
    /** Size of the fixed header. */
    public static final int HEADER_BYTES = 48;
    /** Upper bound on one entry: an entry never leaves its bucket, and buckets are at most 8 MiB. */
    public static final int ENTRY_BYTES_MAX = CacheSuperblock.BUCKET_SIZE_BYTES_MAX;

    static final byte[] MAGIC = ByteLayout.magic("BCJOURNL");
    static final int OFFSET_CRC = 12;
    static final int OFFSET_SEQUENCE = 16;
    static final int OFFSET_CHECKPOINT_SEQUENCE = 24;
    static final int OFFSET_PREVIOUS_CRC = 32;
    static final int OFFSET_ENTRY_BYTES = 36;
    static final int OFFSET_RECORD_COUNT = 40;
    static final int OFFSET_RECORDS_BYTES = 44;
    private static final String NAME = "journal entry";

    public JournalEntry {
        records = List.copyOf(records);
        checkHeader(sequence, checkpointSequence, entryBytes);
    }

    /** The size an entry holding {@code records} encodes to: header + records, rounded up to 4 KiB. */
    public static int encodedBytes(List<JournalRecord> records) {
        long bytes = HEADER_BYTES;
        for (JournalRecord record : records) {
            bytes += JournalRecordCodec.encodedBytes(record);
        }
        return (int) Math.min(Integer.MAX_VALUE, ByteLayout.roundUpToBlock(bytes));
    }

    /**
     * Encodes an entry; read its CRC back with {@link #storedCrc(byte[])} to chain the next one.
     *
     * @throws IllegalArgumentException if a field is out of range or the entry exceeds {@code entryBytesMax}
     */
    public static byte[] encode(long sequence, long checkpointSequence, int previousEntryCrc,
            List<JournalRecord> records, int entryBytesMax) {
        int entryBytes = encodedBytes(records);
        Checks.require(entryBytes <= entryBytesMax, "entry of %d records needs %d bytes, more than %d",
                records.size(), entryBytes, entryBytesMax);
        // Validates the header fields before any bytes are produced.
        checkHeader(sequence, checkpointSequence, entryBytes);
        byte[] bytes = new byte[entryBytes];
        ByteBuffer buffer = ByteLayout.littleEndian(bytes);
        buffer.position(HEADER_BYTES);
        for (JournalRecord record : records) {
            JournalRecordCodec.encode(record, buffer);
        }
        seal(bytes, sequence, checkpointSequence, previousEntryCrc, records.size(), buffer.position() - HEADER_BYTES,
                entryBytes);
        return bytes;
    }

    /**
     * Completes an entry whose {@code recordCount} records are already encoded back to back from {@link #HEADER_BYTES}
     * in {@code bytes} ({@code recordsBytes} of them): writes the header, zeroes the padding up to {@code entryBytes}
     * and the CRC over it. The bytes are then exactly what {@link #encode} returns for those records; the journal
     * writer encodes records as they are appended and seals in place (nothing allocated per record).
     *
     * @throws IllegalArgumentException if a header field is out of range or the records do not fit {@code entryBytes}
     */
    public static void seal(byte[] bytes, long sequence, long checkpointSequence, int previousEntryCrc,
                            int recordCount, int recordsBytes, int entryBytes) {
        checkHeader(sequence, checkpointSequence, entryBytes);
        Checks.require(recordsBytes >= 0 && HEADER_BYTES + recordsBytes <= entryBytes && entryBytes <= bytes.length,
                "%d bytes of records do not fit an entry of %d bytes in an array of %d", recordsBytes, entryBytes,
                bytes.length);
        ByteBuffer buffer = ByteLayout.littleEndian(bytes);
        buffer.put(ByteLayout.OFFSET_MAGIC, MAGIC);
        buffer.putInt(ByteLayout.OFFSET_VERSION, ByteLayout.FORMAT_VERSION);
        buffer.putLong(OFFSET_SEQUENCE, sequence);
        buffer.putLong(OFFSET_CHECKPOINT_SEQUENCE, checkpointSequence);
        buffer.putInt(OFFSET_PREVIOUS_CRC, previousEntryCrc);
        buffer.putInt(OFFSET_ENTRY_BYTES, entryBytes);
        buffer.putInt(OFFSET_RECORD_COUNT, recordCount);
        buffer.putInt(OFFSET_RECORDS_BYTES, recordsBytes);
        Arrays.fill(bytes, HEADER_BYTES + recordsBytes, entryBytes, (byte) 0);
        buffer.putInt(OFFSET_CRC, Crc.ofWithZeroField(bytes, 0, entryBytes, OFFSET_CRC));
    }

    /** The header checks of the record's constructor, without building one. */
    private static void checkHeader(long sequence, long checkpointSequence, int entryBytes) {
        Checks.require(sequence >= 1, "sequence must be at least 1, got %d", sequence);
        Checks.require(checkpointSequence >= 0 && checkpointSequence <= sequence,
                "checkpointSequence must be in [0, sequence %d], got %d", sequence, checkpointSequence);
        Checks.require(entryBytes >= ByteLayout.BLOCK_BYTES && entryBytes % ByteLayout.BLOCK_BYTES == 0
                && entryBytes <= ENTRY_BYTES_MAX, "entryBytes must be a multiple of 4096 in [4096, %d], got %d",
                ENTRY_BYTES_MAX, entryBytes);
    }

    /** Returns the CRC stored in an encoded entry. */
    public static int storedCrc(byte[] encodedEntry) {
        return ByteLayout.littleEndian(encodedEntry).getInt(OFFSET_CRC);
    }

    /**
     * Reads only the first block's magic, version and entryBytes, so a reader knows how much to fetch.
     * entryBytes must be a multiple of 4096 in [4096, {@code entryBytesMax}].
     */
    public static DecodeResult<Integer> peekEntryBytes(byte[] bytes, int offsetBytes, int entryBytesMax) {
        if (bytes.length - offsetBytes < HEADER_BYTES) {
            return DecodeResult.failed(new DecodeError(DecodeError.Kind.TRUNCATED, 0, NAME + ": need "
                    + HEADER_BYTES + " header bytes, found " + (bytes.length - offsetBytes)));
        }
        DecodeError header = ByteLayout.checkMagicAndVersion(bytes, offsetBytes, MAGIC, NAME);
        if (header != null) {
            return DecodeResult.failed(header);
        }
        int entryBytes = ByteLayout.littleEndian(bytes).getInt(offsetBytes + OFFSET_ENTRY_BYTES);
        if (entryBytes < ByteLayout.BLOCK_BYTES || entryBytes % ByteLayout.BLOCK_BYTES != 0
                || entryBytes > entryBytesMax) {
            return DecodeResult.failed(new DecodeError(DecodeError.Kind.BAD_FIELD, OFFSET_ENTRY_BYTES, NAME
                    + ": entryBytes must be a multiple of 4096 in [4096, " + entryBytesMax + "], found "
                    + Integer.toUnsignedString(entryBytes)));
        }
        return DecodeResult.ok(entryBytes);
    }

    /**
     * The verified header of an entry, its records not decoded: what recovery's search needs of every entry it
     * finds (sequence, checkpoint start, chain CRC) without building thousands of record objects per entry.
     *
     * @param recordCount records that follow the header
     * @param recordsBytes bytes those records take
     */
    public record Header(long sequence, long checkpointSequence, int previousEntryCrc, int entryBytes, int entryCrc,
                         int recordCount, int recordsBytes) {
    }

    /**
     * Verifies the entry at {@code bytes[offsetBytes..]} as {@link #decode} does — magic, version, size, the CRC over
     * the whole entry and the header's own fields — and returns its header without decoding the records. An entry
     * whose header verifies but whose records do not decode (a writer bug, or a record type this version does not
     * know) passes here and fails {@link #decode}. Never throws on bad bytes; error offsets are relative to
     * {@code offsetBytes}.
     */
    public static DecodeResult<Header> decodeHeader(byte[] bytes, int offsetBytes, int entryBytesMax) {
        DecodeResult<Integer> length = peekEntryBytes(bytes, offsetBytes, entryBytesMax);
        if (!length.isOk()) {
            return DecodeResult.failed(length.error());
        }
        int entryBytes = length.value();
        DecodeError envelope = ByteLayout.checkEnvelope(bytes, offsetBytes, bytes.length - offsetBytes, entryBytes,
                MAGIC, OFFSET_CRC, NAME);
        if (envelope != null) {
            return DecodeResult.failed(envelope);
        }
        FieldReader reader = new FieldReader(bytes, offsetBytes, entryBytes, NAME);
        try {
            int entryCrc = reader.seek(OFFSET_CRC).u32Bits("entryCrc");
            long sequence = reader.seek(OFFSET_SEQUENCE).u64("sequence");
            long checkpointSequence = reader.seek(OFFSET_CHECKPOINT_SEQUENCE).u64("checkpointSequence");
            int previousEntryCrc = reader.seek(OFFSET_PREVIOUS_CRC).u32Bits("previousEntryCrc");
            int recordCount = reader.seek(OFFSET_RECORD_COUNT).u32AsInt("recordCount");
            int recordsBytes = reader.seek(OFFSET_RECORDS_BYTES).u32AsInt("recordsBytes");
            if (recordsBytes > entryBytes - HEADER_BYTES) {
                throw reader.invalid("recordsBytes", 4, "at most " + (entryBytes - HEADER_BYTES), recordsBytes);
            }
            try {
                checkHeader(sequence, checkpointSequence, entryBytes);
            } catch (IllegalArgumentException e) {
                throw reader.fail(DecodeError.Kind.BAD_FIELD, OFFSET_SEQUENCE, e.getMessage());
            }
            return DecodeResult.ok(new Header(sequence, checkpointSequence, previousEntryCrc, entryBytes, entryCrc,
                    recordCount, recordsBytes));
        } catch (MalformedException e) {
            return DecodeResult.failed(e.error());
        }
    }

    /**
     * Decodes and verifies the entry at {@code bytes[offsetBytes..]}; {@code entryBytesMax} bounds the size
     * the header may claim (the room left in its bucket). Never throws on bad bytes; error offsets are
     * relative to {@code offsetBytes}.
     */
    public static DecodeResult<JournalEntry> decode(byte[] bytes, int offsetBytes, int entryBytesMax) {
        DecodeResult<Header> decodedHeader = decodeHeader(bytes, offsetBytes, entryBytesMax);
        if (!decodedHeader.isOk()) {
            return DecodeResult.failed(decodedHeader.error());
        }
        Header header = decodedHeader.value();
        FieldReader records = new FieldReader(bytes, offsetBytes, HEADER_BYTES + header.recordsBytes(), NAME);
        records.seek(HEADER_BYTES);
        List<JournalRecord> decoded = new ArrayList<>(Math.min(header.recordCount(), header.recordsBytes()));
        try {
            for (int i = 0; i < header.recordCount(); i++) {
                decoded.add(JournalRecordCodec.read(records));
            }
            if (records.remaining() != 0) {
                throw records.fail(DecodeError.Kind.BAD_FIELD, records.position(), header.recordCount()
                        + " records end at byte " + records.position() + " but recordsBytes says "
                        + (HEADER_BYTES + header.recordsBytes()));
            }
        } catch (MalformedException e) {
            return DecodeResult.failed(e.error());
        }
        return DecodeResult.ok(new JournalEntry(header.sequence(), header.checkpointSequence(),
                header.previousEntryCrc(), header.entryBytes(), header.entryCrc(), decoded));
    }
}
