package io.blockcache.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class VerifiedBlocksTest {
    @Test
    void onlyBlocksWhollyInsideAVerifiedSpanAreMarkedAndForgettingClearsOneBucket() {
        // Proves a span marks exactly the 4 KiB blocks it covers whole (sectors 4..36 cover blocks 1..3, not 0
        // or 4, which other writes share), a read is trusted only if every block it touches is marked, and
        // forgetting a bucket clears it alone.
        VerifiedBlocks blocks = new VerifiedBlocks(4, 256);
        blocks.markVerified(2, 4, 32);
        assertThat(blocks.verifiedBlocks()).isEqualTo(3);
        assertThat(blocks.isVerified(2, 8, 8)).isTrue();
        assertThat(blocks.isVerified(2, 8, 24)).isTrue();
        assertThat(blocks.isVerified(2, 4, 4)).isFalse(); // block 0 is shared with sectors 0..3
        assertThat(blocks.isVerified(2, 30, 8)).isFalse(); // runs into block 4
        assertThat(blocks.isVerified(1, 8, 8)).isFalse();
        assertThat(blocks.isVerified(3, 8, 8)).isFalse();
        blocks.markVerified(1, 248, 8); // the last block of a bucket
        blocks.forget(2);
        assertThat(blocks.isVerified(2, 8, 8)).isFalse();
        assertThat(blocks.isVerified(1, 248, 8)).isTrue();
        assertThat(blocks.verifiedBlocks()).isEqualTo(1);
        assertThatThrownBy(() -> blocks.isVerified(1, 250, 8)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> blocks.markVerified(4, 0, 8)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aPartialLastBlockOfAnOddSizedBucketIsNeverTrusted() {
        // Proves test geometries with buckets that are not whole 4 KiB blocks (100 sectors) work: sectors 96..99
        // form a partial block that no span marks, so a read touching it always verifies.
        VerifiedBlocks blocks = new VerifiedBlocks(2, 100);
        blocks.markVerified(1, 0, 100);
        assertThat(blocks.isVerified(1, 88, 8)).isTrue();
        assertThat(blocks.isVerified(1, 96, 4)).isFalse();
        assertThat(blocks.isVerified(0, 96, 4)).isFalse();
        assertThat(blocks.verifiedBlocks()).isEqualTo(12);
    }
}
