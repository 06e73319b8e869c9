package io.blockcache.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blockcache.format.ByteLayout;
import io.blockcache.format.Crc;
import io.blockcache.format.DecodeError;
import io.blockcache.format.JournalEntry;
import io.blockcache.format.JournalRecord;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Recovery's search over the ring verifies entries by header and CRC only (docs/FORMAT.md §5.3); the walk decodes
 * records. These tests pin what that means for an entry whose CRC is valid but whose records do not decode.
 */
class JournalRecoveryTest {
    private static final int BUCKET_BYTES = 128 * 1024;
    private static final int RING_BYTES = 4 * BUCKET_BYTES;
    /** Where an entry keeps its CRC (docs/FORMAT.md §5.1). */
    private static final int CRC_FIELD_OFFSET = 12;

    private final byte[] ring = new byte[RING_BYTES];
    private int offset;
    private long sequence = 1;
    private int previousCrc;

    /** Encodes the next entry of the chain with {@code records} generation records. */
    private byte[] nextEntry(int records) {
        List<JournalRecord> generations = new ArrayList<>();
        for (int i = 0; i < records; i++) {
            generations.add(new JournalRecord.BucketGeneration(i, (int) sequence));
        }
        return JournalEntry.encode(sequence, 0, previousCrc, generations, BUCKET_BYTES);
    }

    /** Writes {@code entry} where the writer would and chains the next one to it; returns its ring offset. */
    private int append(byte[] entry) {
        int at = offset;
        System.arraycopy(entry, 0, ring, at, entry.length);
        offset += entry.length;
        previousCrc = JournalEntry.storedCrc(entry);
        sequence++;
        return at;
    }

    /** Gives the entry's first record an unknown type and seals it again: CRC valid, records undecodable. */
    private static byte[] withUndecodableRecords(byte[] entry) {
        entry[JournalEntry.HEADER_BYTES] = 99;
        ByteLayout.littleEndian(entry).putInt(CRC_FIELD_OFFSET,
                Crc.ofWithZeroField(entry, 0, entry.length, CRC_FIELD_OFFSET));
        return entry;
    }

    @Test
    void theHeaderOfAnEntryVerifiesWithoutItsRecords() {
        // Proves decodeHeader checks what decode checks of the envelope (a flipped record byte fails the CRC) and
        // leaves the records alone (an unknown record type under a valid CRC passes it and fails decode).
        byte[] entry = nextEntry(300);
        JournalEntry decoded = JournalEntry.decode(entry, 0, BUCKET_BYTES).value();
        JournalEntry.Header header = JournalEntry.decodeHeader(entry, 0, BUCKET_BYTES).value();
        assertThat(header.sequence()).isEqualTo(decoded.sequence());
        assertThat(header.checkpointSequence()).isEqualTo(decoded.checkpointSequence());
        assertThat(header.previousEntryCrc()).isEqualTo(decoded.previousEntryCrc());
        assertThat(header.entryBytes()).isEqualTo(decoded.entryBytes());
        assertThat(header.entryCrc()).isEqualTo(decoded.entryCrc());
        assertThat(header.recordCount()).isEqualTo(300);

        byte[] flipped = entry.clone();
        flipped[JournalEntry.HEADER_BYTES + 5] ^= 4;
        assertThat(JournalEntry.decodeHeader(flipped, 0, BUCKET_BYTES).error().kind())
                .isEqualTo(DecodeError.Kind.BAD_CRC);

        byte[] unknownType = withUndecodableRecords(entry.clone());
        assertThat(JournalEntry.decodeHeader(unknownType, 0, BUCKET_BYTES).isOk()).isTrue();
        assertThat(JournalEntry.decode(unknownType, 0, BUCKET_BYTES).error().kind())
                .isEqualTo(DecodeError.Kind.UNKNOWN_TYPE);
    }

    @Test
    void aTornLastEntryStillEndsTheJournalNormally() throws Exception {
        // Proves the search's header-only view does not turn the ordinary crash case into a refusal.
        for (int i = 0; i < 5; i++) {
            append(nextEntry(40));
        }
        int torn = append(nextEntry(40));
        ring[torn + JournalEntry.HEADER_BYTES + 3] ^= 1;

        JournalRecovery recovered = JournalRecovery.recover(ring, BUCKET_BYTES);
        assertThat(recovered.walked()).hasSize(5);
        assertThat(recovered.next().nextSequence()).isEqualTo(6);
        assertThat(recovered.next().ringOffsetBytes()).isEqualTo(torn);
    }

    @Test
    void aDurableEntryBeyondATornOneIsNotDroppedBecauseItsRecordsDoNotDecode() {
        // Entry 7 is written only once 6 is durable, so 6 cannot be a torn tail: recovery must refuse. When the
        // search decoded records, an entry with a valid CRC and a record type this version does not know (a newer
        // version's journal, or a writer bug) did not count as valid anywhere, and entries 6 and 7 were dropped as
        // a torn tail. Now the search finds 7 by its header and CRC, and the broken chain refuses.
        for (int i = 0; i < 5; i++) {
            append(nextEntry(40));
        }
        int torn = append(nextEntry(40));
        int seven = append(withUndecodableRecords(nextEntry(40)));
        ring[torn + JournalEntry.HEADER_BYTES + 3] ^= 1;

        assertThatThrownBy(() -> JournalRecovery.recover(ring, BUCKET_BYTES))
                .isInstanceOf(JournalRecovery.CorruptJournalException.class)
                .hasMessageContaining("the chain ends after sequence 5")
                .hasMessageContaining("entry sequence 7 at ring byte " + seven + " is valid");
    }
}
