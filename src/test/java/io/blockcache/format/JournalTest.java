package io.blockcache.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blockcache.format.JournalScanner.Scan;
import io.blockcache.format.JournalScanner.StopReason;
import io.blockcache.loop.Prng;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class JournalTest {
    private static final int BUCKET_BYTES = 128 * 1024;
    private static final int RING_BYTES = 4 * BUCKET_BYTES;

    /** A ring in memory plus where each entry went, written by the packing rules of FORMAT.md. */
    private static final class Ring {
        final byte[] bytes = new byte[RING_BYTES];
        final List<Long> offsets = new ArrayList<>();
        long offset;
        long sequence = 1;
        int previousCrc;

        void append(List<JournalRecord> records) {
            byte[] entry = JournalEntry.encode(sequence, 0, previousCrc, records, BUCKET_BYTES);
            if (offset % BUCKET_BYTES + entry.length > BUCKET_BYTES) {
                offset = (offset / BUCKET_BYTES + 1) * BUCKET_BYTES % RING_BYTES;
            }
            System.arraycopy(entry, 0, bytes, (int) offset, entry.length);
            offsets.add(offset);
            offset = (offset + entry.length) % RING_BYTES;
            previousCrc = JournalEntry.storedCrc(entry);
            sequence++;
        }

        Scan scan() {
            return new JournalScanner(RING_BYTES, BUCKET_BYTES)
                    .scan((at, length) -> Arrays.copyOfRange(bytes, (int) at, (int) at + length), 0, 1, 0);
        }
    }

    private static Ring ringOf(Prng prng, int entries) {
        Ring ring = new Ring();
        for (int i = 0; i < entries; i++) {
            ring.append(Samples.records(prng, 1 + prng.nextInt(400)));
        }
        return ring;
    }

    @Test
    void anEntrySealedInAReusedArrayIsTheEncodedOne() {
        // Proves the journal writer's path (records encoded as appended, inserts without a record object, the entry
        // sealed in an array that held a larger entry before) writes exactly the bytes of JournalEntry.encode: the
        // padding is zeroed over old bytes, and encodeInsert matches the record's encoding for both insert types.
        Prng prng = new Prng(23);
        byte[] reused = new byte[BUCKET_BYTES];
        for (int i = 0; i < 100; i++) {
            Arrays.fill(reused, (byte) 0xA5); // what a previous, larger entry left
            List<JournalRecord> records = new ArrayList<>(Samples.records(prng, prng.nextInt(300)));
            records.add(prng.nextInt(records.size() + 1), Samples.blockCrcs(prng));
            long sequence = 1 + prng.nextLong(1L << 50);
            int previousCrc = (int) prng.nextLong();
            ByteBuffer buffer = ByteLayout.littleEndian(reused).position(JournalEntry.HEADER_BYTES);
            for (JournalRecord record : records) {
                if (record instanceof JournalRecord.ExtentInsert insert) {
                    JournalRecordCodec.encodeInsert(buffer, insert.volumeId(), insert.startSector(),
                            insert.lengthSectors(), insert.bucket(), insert.offsetInBucketSectors(),
                            insert.generation(), insert.dirty(), insert.crc32c(), insert.crcSpanStartSectors(),
                            insert.crcSpanLengthSectors(), insert.epoch());
                } else if (record instanceof JournalRecord.BlockCrcs crcs) {
                    int[] padded = new int[crcs.count() + 3]; // from an offset, as CachedWrite hands its array
                    System.arraycopy(crcs.crcs(), 0, padded, 3, crcs.count());
                    JournalRecordCodec.encodeBlockCrcs(buffer, crcs.bucket(), crcs.generation(), crcs.firstBlock(),
                            crcs.count(), padded, 3);
                } else {
                    JournalRecordCodec.encode(record, buffer);
                }
            }
            int entryBytes = JournalEntry.encodedBytes(records);
            JournalEntry.seal(reused, sequence, sequence / 2, previousCrc, records.size(),
                    buffer.position() - JournalEntry.HEADER_BYTES, entryBytes);
            assertThat(Arrays.copyOf(reused, entryBytes))
                    .isEqualTo(JournalEntry.encode(sequence, sequence / 2, previousCrc, records, BUCKET_BYTES));
        }
    }

    @Test
    void anInsertEncodedWithoutItsRecordIsCheckedLikeTheRecord() {
        // Proves encodeInsert refuses what the record's constructor refuses, before writing a byte.
        ByteBuffer buffer = ByteLayout.littleEndian(new byte[64]);
        assertThatThrownBy(() -> JournalRecordCodec.encodeInsert(buffer, 1, 0, 8, 3, 16, 1, false, 0, 0, 8, 5))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("a clean extent has no epoch");
        assertThatThrownBy(() -> JournalRecordCodec.encodeInsert(buffer, 1, 0, 8, 3, 16, 1, true, 0, 4, 8, 5))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("does not cover the extent");
        assertThat(buffer.position()).isZero();
    }

    @Test
    void randomEntriesRoundTrip() {
        // Proves an entry with random records of every type decodes to the same header and records.
        Prng prng = new Prng(21);
        for (int i = 0; i < 100; i++) {
            List<JournalRecord> records = new ArrayList<>(Samples.records(prng, prng.nextInt(300)));
            records.add(prng.nextInt(records.size() + 1), Samples.blockCrcs(prng));
            long sequence = 1 + prng.nextLong(1L << 50);
            int previousCrc = (int) prng.nextLong();
            byte[] bytes = JournalEntry.encode(sequence, sequence / 2, previousCrc, records, BUCKET_BYTES);
            JournalEntry entry = JournalEntry.decode(bytes, 0, BUCKET_BYTES).value();
            assertThat(entry.records()).isEqualTo(records);
            assertThat(entry.sequence()).isEqualTo(sequence);
            assertThat(entry.previousEntryCrc()).isEqualTo(previousCrc);
            assertThat(entry.entryCrc()).isEqualTo(JournalEntry.storedCrc(bytes));
            assertThat(entry.entryBytes()).isEqualTo(bytes.length).isEqualTo(JournalEntry.encodedBytes(records));
        }
        assertThatThrownBy(() -> JournalEntry.encode(1, 0, 0, Samples.records(new Prng(1), 20_000), BUCKET_BYTES))
                .hasMessageContaining("more than " + BUCKET_BYTES);
    }

    @Test
    void everyFlippedBitOfAnEntryIsRejected() {
        // Proves no single-bit error anywhere in an entry (header, records, padding) decodes.
        byte[] bytes = JournalEntry.encode(7, 3, 0x1234, Samples.records(new Prng(22), 150), BUCKET_BYTES);
        for (int bit = 0; bit < bytes.length * 8; bit++) {
            DecodeResult<JournalEntry> result = JournalEntry.decode(Samples.flip(bytes, bit), 0, BUCKET_BYTES);
            assertThat(result.isOk()).as("bit %d", bit).isFalse();
            assertThat(result.error().message()).contains("journal entry");
        }
    }

    @Test
    void anExtentWithItsEpochIsType7AndOneWithoutKeepsType1() {
        // Proves the epoch is recorded only where there is one: type 7 (40 B) with it, type 1 (32 B) without, so a
        // cache that never ordered writeback writes exactly the records it wrote before epochs were persisted.
        JournalRecord.ExtentInsert plain = new JournalRecord.ExtentInsert(3, 100, 8, 7, 16, 2, true, 1234, 0, 8);
        JournalRecord.ExtentInsert withEpoch = new JournalRecord.ExtentInsert(3, 100, 8, 7, 16, 2, true, 1234, 0, 8,
                41);
        assertThat(plain.type()).isEqualTo(1);
        assertThat(withEpoch.type()).isEqualTo(7);
        assertThat(JournalRecordCodec.encodedBytes(plain)).isEqualTo(32);
        assertThat(JournalRecordCodec.encodedBytes(withEpoch)).isEqualTo(40);
        byte[] bytes = JournalEntry.encode(1, 0, 0, List.of(plain, withEpoch), BUCKET_BYTES);
        assertThat(JournalEntry.decode(bytes, 0, BUCKET_BYTES).value().records()).containsExactly(plain, withEpoch);
        // A clean extent has no epoch, and a type 7 record with epoch 0 is refused, not read as "no epoch".
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new JournalRecord.ExtentInsert(3, 100, 8, 7, 16, 2,
                false, 1234, 0, 8, 5)).isInstanceOf(IllegalArgumentException.class);
        int epochAt = JournalEntry.HEADER_BYTES + 32 + 1 + 2 + JournalRecordCodec.EXTENT_BODY_BYTES;
        ByteLayout.littleEndian(bytes).putLong(epochAt, 0);
        ByteLayout.littleEndian(bytes).putInt(12, Crc.ofWithZeroField(bytes, 0, bytes.length, 12));
        DecodeError error = JournalEntry.decode(bytes, 0, BUCKET_BYTES).error();
        assertThat(error.kind()).isEqualTo(DecodeError.Kind.BAD_FIELD);
        assertThat(error.message()).contains("epoch");
    }

    @Test
    void anEpochsVoidRecordIsThreeBytesOfType8AndItsVolumeIdIsChecked() {
        // Proves the record that voids a volume's recorded epochs (docs/FORMAT.md §5.2) round-trips as type 8, three
        // bytes, and that a volume id past u16 is refused when it is built, never written.
        JournalRecord.EpochsVoid voided = new JournalRecord.EpochsVoid(65535);
        assertThat(voided.type()).isEqualTo(8);
        assertThat(JournalRecordCodec.encodedBytes(voided)).isEqualTo(3);
        JournalRecord.ExtentInsert withEpoch = new JournalRecord.ExtentInsert(3, 100, 8, 7, 16, 2, true, 1234, 0, 8,
                41);
        byte[] bytes = JournalEntry.encode(1, 0, 0, List.of(withEpoch, voided, new JournalRecord.EpochsVoid(3)),
                BUCKET_BYTES);
        assertThat(JournalEntry.decode(bytes, 0, BUCKET_BYTES).value().records())
                .containsExactly(withEpoch, voided, new JournalRecord.EpochsVoid(3));
        assertThat(bytes[JournalEntry.HEADER_BYTES + 40]).isEqualTo((byte) 8);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new JournalRecord.EpochsVoid(65536))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aBlockCrcRecordIsType9OfElevenBytesAndFourPerBlockAndItsRangeIsChecked() {
        // Proves the block CRC record (docs/FORMAT.md §5.2 type 9): its size and type byte, a round trip beside other
        // records, refusal of an empty or out-of-bucket range when built and when encoded without the record, and a
        // count of zero under a valid CRC decoded as a bad field, not thrown.
        JournalRecord.BlockCrcs crcs = new JournalRecord.BlockCrcs(12, 65535, 8190, new int[] {-1, 0x12345678});
        assertThat(crcs.type()).isEqualTo(9);
        assertThat(JournalRecordCodec.encodedBytes(crcs)).isEqualTo(11 + 8);
        byte[] bytes = JournalEntry.encode(1, 0, 0, List.of(new JournalRecord.CleanShutdown(), crcs), BUCKET_BYTES);
        assertThat(JournalEntry.decode(bytes, 0, BUCKET_BYTES).value().records())
                .containsExactly(new JournalRecord.CleanShutdown(), crcs);
        assertThat(bytes[JournalEntry.HEADER_BYTES + 1]).isEqualTo((byte) 9);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new JournalRecord.BlockCrcs(1, 1, 8191, new int[2]))
                .isInstanceOf(IllegalArgumentException.class);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new JournalRecord.BlockCrcs(1, 1, 0, new int[0]))
                .isInstanceOf(IllegalArgumentException.class);
        ByteBuffer buffer = ByteLayout.littleEndian(new byte[64]);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> JournalRecordCodec.encodeBlockCrcs(buffer, 1, 1,
                8192, 1, new int[1], 0)).isInstanceOf(IllegalArgumentException.class);
        assertThat(buffer.position()).isZero();

        int countAt = JournalEntry.HEADER_BYTES + 1 + 1 + 4 + 2 + 2;
        ByteLayout.littleEndian(bytes).putShort(countAt, (short) 0);
        ByteLayout.littleEndian(bytes).putInt(12, Crc.ofWithZeroField(bytes, 0, bytes.length, 12));
        DecodeError error = JournalEntry.decode(bytes, 0, BUCKET_BYTES).error();
        assertThat(error.kind()).isEqualTo(DecodeError.Kind.BAD_FIELD);
        assertThat(error.message()).contains("block count");
    }

    @Test
    void unknownRecordTypeUnderValidCrcIsNamedWithItsOffset() {
        // Proves an unknown type byte is reported with the type and its byte offset, not thrown.
        byte[] bytes = JournalEntry.encode(1, 0, 0, List.of(new JournalRecord.CleanShutdown(),
                new JournalRecord.BucketGeneration(5, 6)), BUCKET_BYTES);
        bytes[JournalEntry.HEADER_BYTES + 1] = 99;
        ByteLayout.littleEndian(bytes).putInt(12, Crc.ofWithZeroField(bytes, 0, bytes.length, 12));
        DecodeError error = JournalEntry.decode(bytes, 0, BUCKET_BYTES).error();
        assertThat(error.kind()).isEqualTo(DecodeError.Kind.UNKNOWN_TYPE);
        assertThat(error.offsetBytes()).isEqualTo(JournalEntry.HEADER_BYTES + 1);
        assertThat(error.message()).contains("type 99");
    }

    @Test
    void scannerReturnsAllEntriesAcrossBucketsAndStopsAtNeverWrittenSpace() {
        // Proves entries are walked in order, skipping to the next bucket where the writer did.
        Ring ring = ringOf(new Prng(23), 30);
        Scan scan = ring.scan();
        assertThat(scan.entries()).hasSize(30);
        assertThat(scan.entries().stream().map(JournalScanner.ScannedEntry::ringOffsetBytes).toList())
                .isEqualTo(ring.offsets);
        assertThat(ring.offsets).anyMatch(offset -> offset > 0 && offset % BUCKET_BYTES == 0);
        assertThat(scan.stopReason()).isEqualTo(StopReason.END_NO_ENTRY);
        assertThat(scan.stopReason().normalEnd()).isTrue();
        assertThat(scan.stopSequence()).isEqualTo(31);
        assertThat(scan.lastEntryCrc()).isEqualTo(ring.previousCrc);
    }

    @Test
    void scannerStopsAtTornLastEntry() {
        // Proves a torn final write ends the journal normally, after the entries before it.
        Ring ring = ringOf(new Prng(24), 10);
        long last = ring.offsets.get(9);
        ring.bytes[(int) last + 100] ^= 1;
        Scan scan = ring.scan();
        assertThat(scan.entries()).hasSize(9);
        assertThat(scan.stopReason()).isEqualTo(StopReason.TORN_ENTRY);
        assertThat(scan.stopOffsetBytes()).isEqualTo(last);
        assertThat(scan.message()).contains("sequence 10 at ring byte " + last);
    }

    @Test
    void scannerStopsAtOlderEntryBeyondTheTail() {
        // Proves a lower sequence left from the previous lap ends the journal (stale, not replayed).
        Ring ring = new Ring();
        ring.sequence = 100;
        Prng prng = new Prng(25);
        for (int i = 0; i < 6; i++) {
            ring.append(Samples.records(prng, 50));
        }
        long tail = ring.offset;
        ring.offset = 0;
        ring.sequence = 200;
        ring.previousCrc = 77;
        ring.append(Samples.records(prng, 50));
        ring.append(Samples.records(prng, 50));
        Scan scan = new JournalScanner(RING_BYTES, BUCKET_BYTES).scan(
                (at, length) -> Arrays.copyOfRange(ring.bytes, (int) at, (int) at + length), 0, 200, 77);
        assertThat(scan.entries()).hasSize(2);
        assertThat(scan.stopReason()).isEqualTo(StopReason.STALE_SEQUENCE);
        assertThat(scan.message()).contains("older sequence");
        assertThat(tail).isGreaterThan(scan.stopOffsetBytes());
    }

    @Test
    void scannerStopsWhereTheHashChainBreaks() {
        // Proves an entry with the right sequence but another predecessor (stale tail of a crashed run) is refused.
        Prng prng = new Prng(26);
        Ring ring = ringOf(prng, 5);
        long offsetOfFive = ring.offsets.get(4);
        Ring rewritten = ringOf(new Prng(26), 4);
        // The new run rewrote entry 4 differently, so the surviving old entry 5 no longer chains to it.
        byte[] newFour = JournalEntry.encode(4, 0, ringOffsetCrc(rewritten, 2), List.of(
                new JournalRecord.BucketGeneration(1, 2)), BUCKET_BYTES);
        System.arraycopy(newFour, 0, ring.bytes, ring.offsets.get(3).intValue(), newFour.length);
        Arrays.fill(ring.bytes, ring.offsets.get(3).intValue() + newFour.length, (int) offsetOfFive, (byte) 0);
        Scan scan = ring.scan();
        assertThat(scan.entries()).hasSize(4);
        assertThat(scan.stopReason()).isEqualTo(StopReason.CHAIN_MISMATCH);
    }

    private static int ringOffsetCrc(Ring ring, int index) {
        return JournalEntry.decode(Arrays.copyOfRange(ring.bytes, ring.offsets.get(index).intValue(),
                RING_BYTES), 0, BUCKET_BYTES).value().entryCrc();
    }

    @Test
    void scannerReportsASequenceGap() {
        // Proves a newer-than-expected sequence is reported as a gap (corruption, not a normal end).
        Ring ring = ringOf(new Prng(27), 3);
        ring.sequence++;
        ring.append(Samples.records(new Prng(1), 5));
        Scan scan = ring.scan();
        assertThat(scan.entries()).hasSize(3);
        assertThat(scan.stopReason()).isEqualTo(StopReason.SEQUENCE_GAP);
        assertThat(scan.stopReason().normalEnd()).isFalse();
        assertThat(scan.message()).contains("sequences 4..4 are missing");
    }

    @Test
    void scannerReportsACorruptedMiddleEntryWithSequenceAndOffset() {
        // Proves a damaged entry followed by its valid successor is corruption, named by sequence and offset.
        Ring ring = ringOf(new Prng(28), 12);
        long middle = ring.offsets.get(5);
        int flippedAt = (int) middle + 300;
        ring.bytes[flippedAt] ^= 0x10;
        Scan scan = ring.scan();
        assertThat(scan.entries()).hasSize(5);
        assertThat(scan.stopReason()).isEqualTo(StopReason.CORRUPT_ENTRY);
        assertThat(scan.stopReason().normalEnd()).isFalse();
        assertThat(scan.stopSequence()).isEqualTo(6);
        assertThat(scan.stopOffsetBytes()).isEqualTo(middle);
        assertThat(scan.error().kind()).isEqualTo(DecodeError.Kind.BAD_CRC);
        assertThat(scan.message()).contains("corrupt journal entry sequence 6 at ring byte " + middle)
                .contains("successor (sequence 7) is valid at ring byte " + ring.offsets.get(6));
    }
}
