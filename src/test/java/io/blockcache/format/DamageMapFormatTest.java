package io.blockcache.format;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The damage map's on-disk pieces (FORMAT.md §4.1): geometry, block encoding, choosing between the two copies. */
class DamageMapFormatTest {
    private static final UUID BACKING = new UUID(0x1234, 0x5678);
    private static final long MIB = 1 << 20;

    @Test
    void theDefaultDataOffsetHolds127BlocksAndRegionsGrowOnlyWhenTheyMust() {
        // Proves the geometry: (1 MiB - 4 KiB) / 8 KiB = 127 block pairs of 32,192 regions each; 1 MiB regions up
        // to 127 * 32,192 MiB, then 2 MiB; no room for a map behind a 4 KiB data offset.
        DamageMapGeometry small = DamageMapGeometry.of(MIB, 16 * MIB);
        assertThat(small).isEqualTo(new DamageMapGeometry(MIB, 16, 1));
        assertThat(small.copyOffsetBytes(0, 1)).isEqualTo(8192);
        long fitsAt1MiB = 127L * DamageMapBlock.REGIONS_PER_BLOCK * MIB;
        assertThat(DamageMapGeometry.of(MIB, fitsAt1MiB).regionBytes()).isEqualTo(MIB);
        assertThat(DamageMapGeometry.of(MIB, fitsAt1MiB).blockCount()).isEqualTo(127);
        assertThat(DamageMapGeometry.of(MIB, fitsAt1MiB + 512).regionBytes()).isEqualTo(2 * MIB);
        assertThat(DamageMapGeometry.of(4096, 16 * MIB)).isNull();
        assertThat(DamageMapBlock.REGIONS_PER_BLOCK).isEqualTo(32_192);
    }

    @Test
    void aBlockRoundTripsAndEveryFieldSitsAtItsNamedOffset() {
        // Proves encode/decode agree and the bits are where FORMAT.md says: region i at bit i % 8 of byte 64 + i / 8.
        long[] words = new long[DamageMapBlock.WORDS];
        words[0] = 1L << 9;
        words[DamageMapBlock.WORDS - 1] = Long.MIN_VALUE;
        DamageMapBlock block = new DamageMapBlock(7, BACKING, 2 * MIB, 3, 5, 0, 0, words);
        byte[] bytes = block.encode();
        assertThat(DamageMapBlock.decode(bytes, 0).value()).isEqualTo(block);
        assertThat(bytes[DamageMapBlock.OFFSET_BITS + 1]).isEqualTo((byte) 2); // region 9
        assertThat(bytes[DamageMapBlock.OFFSET_BITS + 4023]).isEqualTo((byte) 0x80); // region 32,191
        assertThat(block.marked(9)).isTrue();
        assertThat(block.marked(8)).isFalse();
        assertThat(ByteLayout.littleEndian(bytes).getLong(DamageMapBlock.OFFSET_SEQUENCE)).isEqualTo(7);
        assertThat(ByteLayout.littleEndian(bytes).getInt(DamageMapBlock.OFFSET_BLOCK_INDEX)).isEqualTo(3);
        bytes[100] ^= 1;
        assertThat(DamageMapBlock.decode(bytes, 0).error().kind()).isEqualTo(DecodeError.Kind.BAD_CRC);
    }

    @Test
    void theReaderTakesTheNewestValidCopyOfThisDeviceAndSaysWhyNoneIsUsable() {
        // Proves the two-copy rule: the valid copy with the higher sequence wins; a torn copy or one written for
        // another backing device is passed over; with neither usable the reason names both copies.
        DamageMapGeometry geometry = DamageMapGeometry.of(MIB, 16 * MIB);
        byte[] area = new byte[geometry.areaBytes()];
        put(area, 0, new DamageMapBlock(4, BACKING, MIB, 0, 1, 0, 0, new long[DamageMapBlock.WORDS]));
        long[] marked = new long[DamageMapBlock.WORDS];
        marked[0] = 0b100;
        put(area, 1, new DamageMapBlock(5, BACKING, MIB, 0, 1, 0, 0, marked));
        DamageMapBlock.Chosen chosen = DamageMapBlock.choose(area, BACKING, geometry, 0);
        assertThat(chosen.copy()).isEqualTo(1);
        assertThat(chosen.block().marked(2)).isTrue();
        area[DamageMapBlock.BYTES + 300] ^= 0x40; // copy B torn
        assertThat(DamageMapBlock.choose(area, BACKING, geometry, 0).copy()).isEqualTo(0);
        DamageMapBlock.Chosen foreign = DamageMapBlock.choose(area, new UUID(9, 9), geometry, 0);
        assertThat(foreign.block()).isNull();
        assertThat(foreign.problem()).contains("copy A: written for backing device").contains("copy B: ");
    }

    private static void put(byte[] area, int copy, DamageMapBlock block) {
        System.arraycopy(block.encode(), 0, area, copy * DamageMapBlock.BYTES, DamageMapBlock.BYTES);
    }
}
