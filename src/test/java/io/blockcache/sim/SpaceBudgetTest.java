package io.blockcache.sim;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SpaceBudgetTest {
    @Test
    void writesNeedingBlocksBeyondTheCeilingFailUntilItIsLifted() {
        // Proves the file-system model: 8 KiB written, ceiling 12 KiB: an overwrite fits, a 4 KiB write to a new
        // block fits, a second new block is refused and allocates nothing, a discard frees only whole blocks, and
        // lifting the ceiling admits the write.
        SpaceBudget space = new SpaceBudget();
        assertThat(space.admitWrite(0, 8192)).isTrue();
        space.setAllocatedBytesMax(12288);
        assertThat(space.admitWrite(512, 4096)).isTrue(); // inside blocks 0 and 1
        assertThat(space.admitWrite(8192, 4096)).isTrue();
        assertThat(space.admitWrite(12288, 512)).isFalse();
        assertThat(space.allocatedBytes()).isEqualTo(12288);
        assertThat(space.refusedWrites()).isEqualTo(1);
        space.discard(2048, 4096); // covers no whole block
        assertThat(space.allocatedBytes()).isEqualTo(12288);
        space.discard(4096, 4096);
        assertThat(space.allocatedBytes()).isEqualTo(8192);
        assertThat(space.admitWrite(12288, 512)).isTrue();
        assertThat(space.admitWrite(16384, 4096)).isFalse();
        space.setAllocatedBytesMax(SpaceBudget.UNLIMITED);
        assertThat(space.admitWrite(16384, 4096)).isTrue();
    }
}
