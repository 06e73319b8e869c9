package io.blockcache.nbd;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PayloadBuffersTest {
    @Test
    void buffersAreDirectAlignedExactlySizedAndReusedPerClass() {
        // Proves take() hands out aligned direct buffers limited to the length asked for, and reuses freed ones.
        PayloadBuffers pool = new PayloadBuffers();
        ByteBuffer first = pool.take(4096 + 512);
        assertThat(first.isDirect()).isTrue();
        assertThat(first.alignmentOffset(0, PayloadBuffers.ALIGNMENT_BYTES)).isZero();
        assertThat(first.position()).isZero();
        assertThat(first.limit()).isEqualTo(4096 + 512);
        assertThat(first.capacity()).isEqualTo(8192);
        first.position(100);
        pool.release(first);
        ByteBuffer again = pool.take(5000); // same 8 KiB class
        assertThat(again).isSameAs(first);
        assertThat(again.position()).isZero();
        assertThat(again.limit()).isEqualTo(5000);
        assertThat(pool.take(4096).capacity()).isEqualTo(4096); // another class: a new buffer
        assertThat(pool.allocatedCount()).isEqualTo(2);
    }

    @Test
    void freeBuffersStayWithinTheRetainedBoundAndHugeOnesAreNotKept() {
        // Proves the pool never keeps more than RETAINED_BYTES_MAX free, and drops unpooled large buffers.
        PayloadBuffers pool = new PayloadBuffers();
        List<ByteBuffer> taken = new ArrayList<>();
        int count = (int) (PayloadBuffers.RETAINED_BYTES_MAX / PayloadBuffers.LARGEST_CLASS_BYTES) + 3;
        for (int i = 0; i < count; i++) {
            taken.add(pool.take(PayloadBuffers.LARGEST_CLASS_BYTES));
        }
        taken.forEach(pool::release);
        assertThat(pool.retainedBytes()).isEqualTo(PayloadBuffers.RETAINED_BYTES_MAX);
        ByteBuffer huge = pool.take(PayloadBuffers.LARGEST_CLASS_BYTES + 1000);
        assertThat(huge.limit()).isEqualTo(PayloadBuffers.LARGEST_CLASS_BYTES + 1000);
        assertThat(huge.alignmentOffset(0, PayloadBuffers.ALIGNMENT_BYTES)).isZero();
        pool.release(huge);
        assertThat(pool.retainedBytes()).isEqualTo(PayloadBuffers.RETAINED_BYTES_MAX);
        assertThat(pool.take(0).limit()).isZero();
    }
}
