package io.blockcache.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class BufferShelfTest {
    @Test
    void classesRoundUpToPowersOfTwoAndStopAtTheLargest() {
        // Proves the class arithmetic both pools rely on, computed by hand for 4 KiB..1 MiB.
        assertThat(BufferShelf.sizeClass(0, 4096, 1 << 20)).isZero();
        assertThat(BufferShelf.sizeClass(4096, 4096, 1 << 20)).isZero();
        assertThat(BufferShelf.sizeClass(4097, 4096, 1 << 20)).isEqualTo(1);
        assertThat(BufferShelf.sizeClass(1 << 20, 4096, 1 << 20)).isEqualTo(8);
        assertThat(BufferShelf.sizeClass((1 << 20) + 1, 4096, 1 << 20)).isEqualTo(-1);
        assertThat(new BufferShelf(4096, 1 << 20, 0).classBytes(8)).isEqualTo(1 << 20);
        assertThatThrownBy(() -> new BufferShelf(4000, 1 << 20, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void keepsOnlyExactClassSizesUpToTheBoundAndHandsThemBackByClass() {
        // Proves keep/poll: a buffer of a class size comes back from its class; odd sizes and anything past the
        // retained bound are refused.
        BufferShelf shelf = new BufferShelf(4096, 16384, 12288);
        ByteBuffer small = ByteBuffer.allocate(4096);
        ByteBuffer big = ByteBuffer.allocate(8192);
        assertThat(shelf.keep(ByteBuffer.allocate(5000))).as("not a class size").isFalse();
        assertThat(shelf.keep(small)).isTrue();
        assertThat(shelf.keep(big)).isTrue();
        assertThat(shelf.keep(ByteBuffer.allocate(4096))).as("past 12 KiB kept").isFalse();
        assertThat(shelf.retainedBytes()).isEqualTo(12288);
        assertThat(shelf.poll(2)).isNull();
        assertThat(shelf.poll(1)).isSameAs(big);
        assertThat(shelf.poll(0)).isSameAs(small);
        assertThat(shelf.retainedBytes()).isZero();
    }
}
