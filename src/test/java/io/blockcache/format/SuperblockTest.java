package io.blockcache.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blockcache.loop.Prng;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class SuperblockTest {
    @Test
    void randomSuperblocksRoundTrip() {
        // Proves encode/decode is the identity for random valid field values, including 0..16 backings.
        Prng prng = new Prng(1);
        for (int i = 0; i < 200; i++) {
            CacheSuperblock superblock = Samples.superblock(prng);
            byte[] bytes = superblock.encode();
            assertThat(bytes).hasSize(4096);
            assertThat(CacheSuperblock.decode(bytes, 0).value()).isEqualTo(superblock);
        }
    }

    @Test
    void everyFlippedBitIsRejectedWithItsKindAndOffset() {
        // Proves no single-bit error anywhere in the 4 KiB block decodes, and the error names the right field.
        CacheSuperblock superblock = Samples.superblock(new Prng(2));
        byte[] bytes = superblock.encode();
        for (int bit = 0; bit < bytes.length * 8; bit++) {
            DecodeResult<CacheSuperblock> result = CacheSuperblock.decode(Samples.flip(bytes, bit), 0);
            assertThat(result.isOk()).as("bit %d", bit).isFalse();
            DecodeError error = result.error();
            DecodeError.Kind expected = bit < 64 ? DecodeError.Kind.BAD_MAGIC
                    : bit < 96 ? DecodeError.Kind.UNKNOWN_VERSION : DecodeError.Kind.BAD_CRC;
            assertThat(error.kind()).as("bit %d", bit).isEqualTo(expected);
            if (expected == DecodeError.Kind.BAD_CRC) {
                assertThat(error.offsetBytes()).isEqualTo(4092);
                assertThat(error.message()).contains("stored 0x");
            }
        }
    }

    @Test
    void truncatedBlockAndBadFieldUnderValidCrcAreReported() {
        // Proves a short buffer is TRUNCATED and a forbidden value behind a valid CRC is BAD_FIELD, not a throw.
        byte[] bytes = Samples.superblock(new Prng(3)).encode();
        assertThat(CacheSuperblock.decode(java.util.Arrays.copyOf(bytes, 4000), 0).error().kind())
                .isEqualTo(DecodeError.Kind.TRUNCATED);
        ByteLayout.littleEndian(bytes).putInt(40, 3 * 65536); // bucket size not a power of two
        ByteLayout.littleEndian(bytes).putInt(4092, Crc.ofWithZeroField(bytes, 0, 4096, 4092));
        DecodeError error = CacheSuperblock.decode(bytes, 0).error();
        assertThat(error.kind()).isEqualTo(DecodeError.Kind.BAD_FIELD);
        assertThat(error.message()).contains("bucketSizeBytes").contains("196608");
    }

    @Test
    void encodeValidatesLimits() {
        // Proves encode-time validation names the field, the limit and the value.
        UUID uuid = new UUID(1, 2);
        assertThatThrownBy(() -> new AttachedBacking(uuid, 4096, 1 << 20, 1, "x".repeat(64)))
                .hasMessageContaining("at most 63 bytes").hasMessageContaining("64");
        assertThatThrownBy(() -> new CacheSuperblock(1, uuid, 512, 3 << 17, 100, 1 << 20, 0, 4, 0, List.of()))
                .hasMessageContaining("bucketSizeBytes must be a power of two");
        List<AttachedBacking> seventeen = new java.util.ArrayList<>();
        for (int i = 0; i < 17; i++) {
            seventeen.add(new AttachedBacking(new UUID(0, i), 4096, 1 << 20, i, "v" + i));
        }
        assertThatThrownBy(() -> new CacheSuperblock(1, uuid, 512, 1 << 20, 100, 1 << 20, 0, 4, 0, seventeen))
                .hasMessageContaining("at most 16 backing devices, got 17");
    }

    @Test
    void pairPicksNewerValidCopyAndReportsTheOther() {
        // Proves the higher valid sequence wins either way round and the other copy's state is reported.
        CacheSuperblock old = Samples.superblock(new Prng(4));
        CacheSuperblock newer = old.next(0, old.backings());
        byte[] oldBytes = old.encode();
        byte[] newBytes = newer.encode();

        SuperblockPair aNewer = SuperblockPair.read(newBytes, oldBytes).value();
        assertThat(aNewer.chosen()).isEqualTo(newer);
        assertThat(aNewer.chosenCopy()).isEqualTo(SuperblockPair.Copy.A);
        assertThat(aNewer.otherStatus()).isEqualTo(SuperblockPair.OtherStatus.OLDER);
        assertThat(aNewer.otherSequence()).isEqualTo(old.sequence());

        SuperblockPair bNewer = SuperblockPair.read(oldBytes, newBytes).value();
        assertThat(bNewer.chosenCopy()).isEqualTo(SuperblockPair.Copy.B);
        assertThat(bNewer.chosen()).isEqualTo(newer);

        SuperblockPair same = SuperblockPair.read(newBytes, newBytes).value();
        assertThat(same.chosenCopy()).isEqualTo(SuperblockPair.Copy.A);
        assertThat(same.otherNeedsRepair()).isFalse();
    }

    @Test
    void pairSurvivesOneCorruptCopyAndNamesBothWhenBothAreCorrupt() {
        // Proves a torn newer copy falls back to the other, in both directions, and two bad copies name both.
        CacheSuperblock old = Samples.superblock(new Prng(5));
        byte[] oldBytes = old.encode();
        byte[] tornNew = Samples.flip(old.next(0, old.backings()).encode(), 8 * 200 + 3);

        SuperblockPair tornA = SuperblockPair.read(tornNew, oldBytes).value();
        assertThat(tornA.chosenCopy()).isEqualTo(SuperblockPair.Copy.B);
        assertThat(tornA.chosen()).isEqualTo(old);
        assertThat(tornA.otherError().kind()).isEqualTo(DecodeError.Kind.BAD_CRC);
        assertThat(tornA.describe()).contains("copy A at byte 0 is invalid").contains("BAD_CRC");

        byte[] badMagic = Samples.flip(oldBytes, 0);
        SuperblockPair tornB = SuperblockPair.read(oldBytes, badMagic).value();
        assertThat(tornB.chosenCopy()).isEqualTo(SuperblockPair.Copy.A);
        assertThat(tornB.otherError().kind()).isEqualTo(DecodeError.Kind.BAD_MAGIC);
        assertThat(tornB.otherError().offsetBytes()).isEqualTo(4096);

        DecodeError both = SuperblockPair.read(tornNew, badMagic).error();
        assertThat(both.kind()).isEqualTo(DecodeError.Kind.NO_VALID_COPY);
        assertThat(both.message()).contains("copy A at byte 0: BAD_CRC").contains("copy B at byte 4096: BAD_MAGIC");
    }
}
