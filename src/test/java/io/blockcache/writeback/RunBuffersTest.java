package io.blockcache.writeback;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RunBuffersTest {
    @Test
    void aRunBufferIsDirectAlignedSizedAndReusedOnceGivenBack() {
        // Proves the pool's contract: direct, 4 KiB-aligned, limit = the run's bytes, the same buffer again after
        // give, and a heap buffer past the largest class.
        RunBuffers buffers = new RunBuffers();
        ByteBuffer first = buffers.take(12 << 10);
        assertThat(first.isDirect()).isTrue();
        assertThat(first.alignmentOffset(0, RunBuffers.ALIGNMENT_BYTES)).isZero();
        assertThat(first.position()).isZero();
        assertThat(first.limit()).isEqualTo(12 << 10);
        assertThat(first.capacity()).isGreaterThanOrEqualTo(16 << 10);
        first.position(100);
        buffers.give(first);
        ByteBuffer again = buffers.take(9 << 10);
        assertThat(again).isSameAs(first);
        assertThat(again.position()).isZero();
        assertThat(again.limit()).isEqualTo(9 << 10);
        assertThat(buffers.allocated()).isEqualTo(1);
        assertThat(buffers.inUseBytes()).isEqualTo(again.capacity());
        buffers.give(again);
        assertThat(buffers.inUseBytes()).isZero();
        ByteBuffer huge = buffers.take(RunBuffers.LARGEST_CLASS_BYTES + 512);
        assertThat(huge.isDirect()).isFalse();
        buffers.give(huge);
        assertThat(buffers.retainedBytes()).isEqualTo(again.capacity());
    }

    @Test
    void freeBuffersAreKeptOnlyUpToTheBound() {
        // Proves RETAINED_BYTES_MAX: of 40 returned 1 MiB buffers only 16 MiB' worth stay; and IN_USE_BYTES_MAX:
        // past 64 MiB handed out, runs get heap buffers.
        RunBuffers buffers = new RunBuffers();
        List<ByteBuffer> taken = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            taken.add(buffers.take(1 << 20));
        }
        taken.forEach(buffers::give);
        assertThat(buffers.retainedBytes()).isLessThanOrEqualTo(RunBuffers.RETAINED_BYTES_MAX)
                .isGreaterThan(RunBuffers.RETAINED_BYTES_MAX - (2 << 20));
        for (int i = 0; i < 40; i++) {
            buffers.take(1 << 20);
        }
        assertThat(buffers.allocated()).as("40 first, then only those not kept").isLessThan(80).isGreaterThan(40);
        List<ByteBuffer> more = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            more.add(buffers.take(1 << 20));
        }
        long direct = more.stream().filter(ByteBuffer::isDirect).count();
        assertThat(direct).as("direct beside the 40 held").isBetween(1L, 24L);
        assertThat(more.get(more.size() - 1).isDirect()).as("the last one, past the bound").isFalse();
        assertThat(buffers.inUseBytes()).isLessThanOrEqualTo(RunBuffers.IN_USE_BYTES_MAX);
    }
}
