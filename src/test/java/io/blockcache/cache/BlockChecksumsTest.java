package io.blockcache.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blockcache.format.Crc;
import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.api.Test;

class BlockChecksumsTest {
    private static byte[] random(int bytes, long seed) {
        byte[] data = new byte[bytes];
        new Random(seed).nextBytes(data);
        return data;
    }

    @Test
    void learningAWriteRecordsExactlyTheBlocksItFillsWholeWithTheirCrcs() {
        // Proves a range written at sectors 4..36 of a bucket records blocks 1..3 (whole inside it) with the CRC32C
        // of their own bytes, not blocks 0 or 4 (which other writes share); a read is covered only if every block it
        // touches has a CRC; the buffer's position and limit are kept; forgetting a bucket clears it alone.
        BlockChecksums blocks = new BlockChecksums(4, 256);
        byte[] data = random(32 * 512, 1);
        ByteBuffer buffer = ByteBuffer.wrap(data).position(0);
        blocks.learn(2, 4, buffer);
        assertThat(buffer.position()).isZero();
        assertThat(buffer.limit()).isEqualTo(data.length);
        assertThat(blocks.knownBlocks()).isEqualTo(3);
        for (int block = 1; block <= 3; block++) {
            int from = (block * 8 - 4) * 512;
            assertThat(blocks.crc(2, block)).as("block %d", block).isEqualTo(Crc.of(data, from, 4096));
        }
        assertThat(blocks.covers(2, 8, 8)).isTrue();
        assertThat(blocks.covers(2, 9, 20)).isTrue();
        assertThat(blocks.covers(2, 4, 4)).isFalse(); // block 0 is shared with sectors 0..3
        assertThat(blocks.covers(2, 30, 8)).isFalse(); // runs into block 4
        assertThat(blocks.covers(1, 8, 8)).isFalse();
        assertThat(blocks.covers(3, 8, 8)).isFalse();
        blocks.put(1, 31, 1, new int[] {7, 0x5eed}, 1); // the last block of a bucket
        blocks.forget(2);
        assertThat(blocks.covers(2, 8, 8)).isFalse();
        assertThat(blocks.covers(1, 248, 8)).isTrue();
        assertThat(blocks.crc(1, 31)).isEqualTo(0x5eed);
        assertThat(blocks.knownBlocks()).isEqualTo(1);
        assertThatThrownBy(() -> blocks.covers(1, 250, 8)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> blocks.put(1, 31, 2, new int[2], 0)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> blocks.learn(4, 0, ByteBuffer.allocate(4096)))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void learningKeepsTheCrcsABlockAlreadyHas() {
        // Proves a second learn of the same blocks (a span verified again) does not recompute them: an entry made
        // from the write's buffer stays (here deliberately different, to see which one is kept).
        BlockChecksums blocks = new BlockChecksums(1, 64);
        blocks.put(0, 1, 1, new int[] {0xabc}, 0);
        byte[] data = random(4 * 4096, 2);
        blocks.learn(0, 0, ByteBuffer.wrap(data));
        assertThat(blocks.crc(0, 1)).isEqualTo(0xabc);
        assertThat(blocks.crc(0, 2)).isEqualTo(Crc.of(data, 2 * 4096, 4096));
        assertThat(blocks.knownBlocks()).isEqualTo(4);
    }

    @Test
    void aPartialLastBlockOfAnOddSizedBucketNeverHasACrc() {
        // Proves test geometries with buckets that are not whole 4 KiB blocks (100 sectors) work: sectors 96..99
        // form a partial block that no write fills whole, so a read touching it always verifies its span.
        BlockChecksums blocks = new BlockChecksums(2, 100);
        blocks.learn(1, 0, ByteBuffer.wrap(random(100 * 512, 3)));
        assertThat(blocks.covers(1, 88, 8)).isTrue();
        assertThat(blocks.covers(1, 96, 4)).isFalse();
        assertThat(blocks.covers(0, 96, 4)).isFalse();
        assertThat(blocks.knownBlocks()).isEqualTo(12);
    }

    @Test
    void heapBytesAreFourBytesAndABitPerBlock() {
        assertThat(BlockChecksums.heapBytesFor(1L << 30)).isEqualTo((1L << 30) / 4096 * 4 + (1L << 30) / 4096 / 8);
    }
}
