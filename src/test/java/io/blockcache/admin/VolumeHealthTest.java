package io.blockcache.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** {@link VolumeHealth} from the parts of a snapshot: the worst state wins, with its reason. */
class VolumeHealthTest {
    private static final WritebackSnapshot FINE = writeback(null, null);

    @Test
    void theWorstFindingDecidesTheStateAndItsReason() {
        // Proves the order failed > degraded (backing changed, disconnected, cache device changed) > ok, each
        // finding read from the field that holds it.
        StatsSnapshot.DeviceSnapshot backing = device(null, true);
        StatsSnapshot.DeviceSnapshot cache = device(null, true);
        assertThat(VolumeHealth.of(FINE, backing, cache)).isEqualTo(VolumeHealth.OK);
        assertThat(VolumeHealth.of(FINE, backing, device("file replaced", true)))
                .isEqualTo(VolumeHealth.of(VolumeHealth.Reason.CACHE_DEVICE_CHANGED));
        assertThat(VolumeHealth.of(FINE, device(null, false), device("file replaced", true)))
                .isEqualTo(VolumeHealth.of(VolumeHealth.Reason.BACKING_DISCONNECTED));
        assertThat(VolumeHealth.of(FINE, device("file deleted", false), cache))
                .isEqualTo(VolumeHealth.of(VolumeHealth.Reason.BACKING_CHANGED));
        assertThat(VolumeHealth.of(writeback(null, "backing file deleted"), backing, cache).reason())
                .isEqualTo(VolumeHealth.Reason.BACKING_CHANGED);
        VolumeHealth failed = VolumeHealth.of(writeback("flush: EIO", "backing file deleted"), device(null, false),
                device("file replaced", true));
        assertThat(failed.state()).isEqualTo(VolumeHealth.State.FAILED);
        assertThat(failed.reason().label()).isEqualTo("backing_flush_failed");
        assertThat(VolumeHealth.of(FINE, null, null)).isEqualTo(VolumeHealth.OK);
    }

    @Test
    void aReasonBelongsToOneState() {
        // Proves a health whose reason says another state is refused (the two labels can never disagree).
        assertThatThrownBy(() -> new VolumeHealth(VolumeHealth.State.OK, VolumeHealth.Reason.BACKING_CHANGED))
                .hasMessageContaining("DEGRADED");
    }

    private static StatsSnapshot.DeviceSnapshot device(String changed, boolean connected) {
        return new StatsSnapshot.DeviceSnapshot("vol", 0, 0, 0, 0,
                new StatsSnapshot.RemoteSnapshot(connected, connected ? "connected" : "away", 0, 0, 0, 0), null,
                changed);
    }

    private static WritebackSnapshot writeback(String backingFailure, String degraded) {
        WritebackSnapshot sample = StatsSamples.full(0).volumes().get(0).writeback();
        return new WritebackSnapshot(sample.running(), sample.policy(), sample.order(), sample.frontEndIdle(),
                sample.overloaded(), sample.dirtyBytes(), sample.writtenBackSectors(), sample.backingWriteSectors(),
                sample.passes(),
                sample.keysInFlight(), sample.keysInFlightPeak(), sample.backingWritesInFlight(),
                sample.backingQueueDepth(), sample.measuredBackingBytesPerSecond(), sample.rate(), sample.readErrors(),
                sample.checksumErrors(), sample.writeErrors(), sample.flushErrors(), sample.lastError(), backingFailure,
                sample.drain(), sample.epochs(), degraded, sample.passDurations());
    }
}
