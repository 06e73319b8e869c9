package io.blockcache.volume;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SequentialStreamsTest {
    private static final long KIB = 1024;

    @Test
    void contiguousRequestsAccumulateAndAGapStartsANewStream() {
        // Proves a stream is continued only by a request starting exactly at its end; anything else resets the run.
        SequentialStreams streams = new SequentialStreams();
        assertThat(streams.record(0, 64 * KIB, 0)).isEqualTo(64 * KIB);
        assertThat(streams.record(128, 64 * KIB, 1)).isEqualTo(128 * KIB);
        assertThat(streams.record(256, 64 * KIB, 2)).isEqualTo(192 * KIB);
        assertThat(streams.record(264, 64 * KIB, 3)).as("overlap, not continuation").isEqualTo(64 * KIB);
        assertThat(streams.record(1000, 4 * KIB, 4)).isEqualTo(4 * KIB);
        assertThat(streams.streamsStarted()).isEqualTo(3);
    }

    @Test
    void interleavedStreamsAreTrackedApartAndTheLeastRecentlyUsedIsForgotten() {
        // Proves 64 interleaved streams each keep their run, and a 65th stream evicts the least recently used one.
        SequentialStreams streams = new SequentialStreams();
        long t = 0;
        for (int round = 1; round <= 3; round++) {
            for (int s = 0; s < SequentialStreams.STREAMS_MAX; s++) {
                long start = s * 1_000_000L + (round - 1) * 8;
                assertThat(streams.record(start, 4 * KIB, t++)).as("stream %s round %s", s, round)
                        .isEqualTo(round * 4 * KIB);
            }
        }
        streams.record(999_000_000L, 4 * KIB, t++); // evicts stream 0, the least recently used
        assertThat(streams.record(24, 4 * KIB, t++)).as("stream 0 was forgotten").isEqualTo(4 * KIB);
        assertThat(streams.record(1_000_000L + 24, 4 * KIB, t++)).as("stream 1 lost its slot to stream 0's restart")
                .isEqualTo(4 * KIB);
        // Stream 1's restart evicted stream 2 (then the least recently used); stream 3 is still known.
        assertThat(streams.record(3_000_000L + 24, 4 * KIB, t)).as("stream 3 still known").isEqualTo(16 * KIB);
    }

    @Test
    void aStreamExpiresAfterFiveSecondsWithoutRequests() {
        // Proves bcache's 5 s expiry: a request at an old stream's end after 5 s starts a new stream.
        SequentialStreams streams = new SequentialStreams();
        streams.record(0, 64 * KIB, 0);
        assertThat(streams.record(128, 64 * KIB, SequentialStreams.STREAM_EXPIRY_NS - 1)).isEqualTo(128 * KIB);
        assertThat(streams.record(256, 64 * KIB, 2 * SequentialStreams.STREAM_EXPIRY_NS)).isEqualTo(64 * KIB);
    }
}
