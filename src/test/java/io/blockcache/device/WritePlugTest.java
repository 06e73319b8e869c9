package io.blockcache.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** Proves what joins a {@link WritePlug} and that the bytes it hands out are the held writes, in order. */
class WritePlugTest {
    private static final int PAGE = 4096;
    private static final IoCallback IGNORED = result -> { };

    @Test
    void aLoneWriteIsHandedOutAsTheCallersOwnBuffer() {
        WritePlug plug = new WritePlug();
        ByteBuffer src = page(1);
        plug.add(8 * PAGE, src, IGNORED, 5);
        assertThat(plug.data()).as("no copy for a plug of one").isSameAs(src);
        assertThat(plug.offsetBytes()).isEqualTo(8 * PAGE);
        assertThat(plug.submittedNs(0)).isEqualTo(5);
    }

    @Test
    void joinedWritesAreCopiedInOrderAndTheCallersBuffersAreLeftAsTheyWere() {
        WritePlug plug = new WritePlug();
        ByteBuffer first = page(1);
        ByteBuffer second = ByteBuffer.allocateDirect(2 * PAGE).put(new byte[PAGE]).put(page(2)).position(PAGE);
        IoCallback one = result -> { };
        IoCallback two = result -> { };
        plug.add(0, first, one, 10);
        plug.add(PAGE, second, two, 11);
        assertThat(first.position()).isZero();
        assertThat(second.position()).isEqualTo(PAGE);
        ByteBuffer data = plug.data();
        assertThat(data.remaining()).isEqualTo(2 * PAGE);
        assertThat(data.get(0)).isEqualTo((byte) 1);
        assertThat(data.get(PAGE - 1)).isEqualTo((byte) 1);
        assertThat(data.get(PAGE)).isEqualTo((byte) 2);
        assertThat(data.get(2 * PAGE - 1)).isEqualTo((byte) 2);
        assertThat(plug.count()).isEqualTo(2);
        assertThat(plug.callback(0)).isSameAs(one);
        assertThat(plug.callback(1)).isSameAs(two);
        assertThat(plug.lengthBytes(1)).isEqualTo(PAGE);
    }

    @Test
    void onlyAnAdjacentWriteWithRoomJoins() {
        WritePlug plug = new WritePlug();
        assertThat(plug.accepts(0, WritePlug.BYTES_MAX)).isTrue();
        assertThat(plug.accepts(0, WritePlug.BYTES_MAX + PAGE)).isFalse();
        plug.add(PAGE, page(1), IGNORED, 0);
        assertThat(plug.accepts(2 * PAGE, PAGE)).as("adjacent").isTrue();
        assertThat(plug.accepts(3 * PAGE, PAGE)).as("a gap").isFalse();
        assertThat(plug.accepts(0, PAGE)).as("just before").isFalse();
        assertThat(plug.accepts(2 * PAGE, WritePlug.BYTES_MAX)).as("no room").isFalse();
        assertThatThrownBy(() -> plug.add(3 * PAGE, page(2), IGNORED, 0)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("does not join");
        for (int i = 1; i < WritePlug.REQUESTS_MAX; i++) {
            plug.add(2 * PAGE + (i - 1) * 512L, ByteBuffer.allocateDirect(512), IGNORED, 0);
        }
        long end = 2 * PAGE + (WritePlug.REQUESTS_MAX - 1) * 512L;
        assertThat(plug.accepts(end, 512)).as("no more writes than it holds").isFalse();
    }

    @Test
    void overlapsIsAnyCommonByteAndClearEmpties() {
        WritePlug plug = new WritePlug();
        assertThat(plug.overlaps(0, PAGE)).as("empty").isFalse();
        plug.add(PAGE, page(1), IGNORED, 0);
        plug.add(2 * PAGE, page(2), IGNORED, 0);
        assertThat(plug.overlaps(0, PAGE)).isFalse();
        assertThat(plug.overlaps(0, PAGE + 1)).isTrue();
        assertThat(plug.overlaps(3 * PAGE - 1, PAGE)).isTrue();
        assertThat(plug.overlaps(3 * PAGE, PAGE)).isFalse();
        plug.clear();
        assertThat(plug.isEmpty()).isTrue();
        assertThat(plug.callback(0)).as("no callback kept").isNull();
        plug.add(7 * PAGE, page(3), IGNORED, 0);
        assertThat(plug.offsetBytes()).isEqualTo(7 * PAGE);
        assertThat(plug.data().get(0)).isEqualTo((byte) 3);
    }

    private static ByteBuffer page(int fill) {
        ByteBuffer page = ByteBuffer.allocateDirect(PAGE);
        while (page.hasRemaining()) {
            page.put((byte) fill);
        }
        return page.flip();
    }
}
