package io.blockcache.admin;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The once-a-second sampler, called by hand with a fake wall clock (no thread, no sleep). */
class HistoryRecorderTest {
    private static final long T0_MS = 1_796_000_000_500L;

    @Test
    void aSnapshotThatFailsIsAGapCountedWithItsReasonAndSamplingGoesOn() {
        // Proves a loop that does not answer costs one second of history, not the sampler: the failure is counted
        // with its message, its second reads as a gap, and the next second's rate is over the two-second interval.
        AtomicLong nowMs = new AtomicLong(T0_MS);
        AtomicReference<StatsSnapshot> next = new AtomicReference<>(StatsSamples.full(0));
        HistoryRecorder recorder = new HistoryRecorder(() -> {
            StatsSnapshot snapshot = next.get();
            if (snapshot == null) {
                throw new IllegalStateException("the loop did not answer within 5000 ms");
            }
            return snapshot;
        }, nowMs::get);
        recorder.sampleOnce();
        nowMs.addAndGet(1000);
        next.set(null);
        recorder.sampleOnce();
        nowMs.addAndGet(1000);
        next.set(StatsSamples.full(10));
        recorder.sampleOnce();

        assertThat(recorder.failures()).isEqualTo(1);
        assertThat(recorder.lastFailure()).isEqualTo("the loop did not answer within 5000 ms");
        MetricHistory.Window window = recorder.history().window(3, recorder.endSecond());
        assertThat(window.firstSecond()).isEqualTo(T0_MS / 1000);
        assertThat(window.values().get("volume/alpha/dirtyBytes")).containsExactly(97, Double.NaN, 107);
        // 10 read-hit sectors more over 2 s: 2560 B/s.
        assertThat(window.values().get("volume/alpha/readHitBytesPerSecond")).containsExactly(Double.NaN,
                Double.NaN, 2560);
    }
}
