package io.blockcache.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class BackingLogFormatTest {
    private static final long MIB = 1 << 20;
    private static final UUID BACKING = new UUID(5, 6);

    @Test
    void aHeaderCarriesItsLogSizeAndAHeaderWithoutOneReadsAsNoLog() {
        // Proves the header field (FORMAT.md §4.4) and that every header written before it (zero there) has no log.
        BackingHeader withLog = new BackingHeader(BACKING, new UUID(1, 1), MIB + 256 * MIB, 1L << 30, 256 * MIB);
        BackingHeader decoded = BackingHeader.decode(withLog.encode(), 0).value();
        assertThat(decoded).isEqualTo(withLog);
        assertThat(decoded.hasLog()).isTrue();
        BackingHeader plain = new BackingHeader(BACKING, new UUID(1, 1), MIB, 1L << 30);
        byte[] bytes = plain.encode();
        assertThat(bytes[BackingHeader.OFFSET_LOG_SIZE]).isZero();
        assertThat(BackingHeader.decode(bytes, 0).value().hasLog()).isFalse();
    }

    @Test
    void aLogMustFillTheAreaFromItsMiBToTheData() {
        // Proves the geometry rule: the log is [1 MiB, dataOffset), whole MiB, nothing else.
        assertThatThrownBy(() -> new BackingHeader(BACKING, BACKING, 2 * MIB + 4096, 1L << 30, MIB + 4096))
                .hasMessageContaining("logSizeBytes");
        assertThatThrownBy(() -> new BackingHeader(BACKING, BACKING, 4 * MIB, 1L << 30, 2 * MIB))
                .hasMessageContaining("ends where the data starts");
        assertThat(new BackingHeader(BACKING, BACKING, 4 * MIB, 1L << 30, 3 * MIB).hasLog()).isTrue();
    }

    @Test
    void theDamageMapKeepsItsPlaceAndSizeWhateverTheLog() {
        // Proves the map never reaches into a log: its area ends at 1 MiB however far the data starts.
        DamageMapGeometry without = DamageMapGeometry.of(MIB, 8L << 40);
        DamageMapGeometry with = DamageMapGeometry.of(MIB + 512 * MIB, 8L << 40);
        assertThat(with).isEqualTo(without);
        assertThat(4096 + with.areaBytes()).isLessThanOrEqualTo((int) BackingHeader.LOG_OFFSET_BYTES);
    }

    @Test
    void aCommitRoundTripsAndARetiredOrTornOneIsNoCommit() {
        // Proves the commit block's codec and its two "no group" cases: all zero (retired) and one bit flipped (torn).
        BackingLogCommit commit = new BackingLogCommit(BACKING, 42, 7, 9, 3, 3 * 4096L, 0xCAFEF00D);
        byte[] bytes = commit.encode();
        assertThat(BackingLogCommit.decode(bytes, 0).value()).isEqualTo(commit);
        assertThat(commit.bodyBytes()).isEqualTo(3 * 4096L + 4096);
        assertThat(BackingLogCommit.decode(new byte[4096], 0).error().kind()).isEqualTo(DecodeError.Kind.BAD_MAGIC);
        bytes[BackingLogCommit.OFFSET_DATA_BYTES] ^= 1;
        assertThat(BackingLogCommit.decode(bytes, 0).error().kind()).isEqualTo(DecodeError.Kind.BAD_CRC);
        assertThatThrownBy(() -> new BackingLogCommit(BACKING, 1, 0, 0, 2, 4096, 0)).hasMessageContaining("dataBytes");
        assertThatThrownBy(() -> new BackingLogCommit(BACKING, 1, 5, 4, 1, 4096, 0)).hasMessageContaining("epochs");
    }

    @Test
    void descriptorsRoundTripAndABadOneIsReportedNotThrown() {
        // Proves the descriptor codec: 256 to a block, and a reserved field or zero length is a clear error.
        List<BackingLogRecord> records = new java.util.ArrayList<>();
        for (int i = 0; i < 300; i++) {
            records.add(new BackingLogRecord(i * 1000L, 1 + i));
        }
        byte[] bytes = BackingLogRecord.encode(records);
        assertThat(bytes).hasSize(2 * 4096);
        assertThat(BackingLogRecord.decode(bytes, 300).value()).isEqualTo(records);
        bytes[16 * 3 + 8] = 0;
        bytes[16 * 3 + 9] = 0; // record 3: length 4 -> 0
        assertThat(BackingLogRecord.decode(bytes, 300).error().message()).contains("descriptor 3");
        assertThat(BackingLogRecord.decode(bytes, 600).error().kind()).isEqualTo(DecodeError.Kind.TRUNCATED);
    }

    @Test
    void layoutCountsDataDescriptorsAndTheCommit() {
        BackingLogLayout layout = new BackingLogLayout(MIB);
        assertThat(BackingLogLayout.recordSlotBytes(1)).isEqualTo(4096);
        assertThat(BackingLogLayout.recordSlotBytes(9)).isEqualTo(8192);
        assertThat(layout.fits(1, MIB - 8192)).isTrue(); // commit + data + one descriptor block = 1 MiB
        assertThat(layout.fits(1, MIB - 4096)).isFalse();
        assertThat(layout.fits(256, MIB - 2 * 4096)).isTrue();
        assertThat(layout.fits(257, MIB - 2 * 4096)).isFalse(); // 257 records need two descriptor blocks
    }
}
