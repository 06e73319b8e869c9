package io.blockcache.writeback;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blockcache.index.ExtentLocation;
import java.util.List;
import org.junit.jupiter.api.Test;

class WritebackUnitTest {
    private static final long MS = 1_000_000L;
    private static final RateController.Space ROOMY = new RateController.Space(10, 10, 2048);

    private static DirtyKey key(long start, int length) {
        return new DirtyKey(start, length, ExtentLocation.pack(1, 0, 0, true), 0, 0, length, 0);
    }

    @Test
    void piControllerMatchesHandComputedTerms() {
        // Proves P = error/40, I += error*dt (dt = 5 s) scaled by 1/10000, the clamp, and anti-windup.
        RateController pi = new RateController();
        WritebackSettings s = WritebackSettings.defaults();
        RateTerms t1 = pi.update(1_000_000, 200_000, true, ROOMY, s);
        assertThat(t1.errorSectors()).isEqualTo(800_000);
        assertThat(t1.proportional()).isEqualTo(20_000);
        assertThat(t1.integralSectorSeconds()).isEqualTo(4_000_000);
        assertThat(t1.integralScaled()).isEqualTo(400);
        assertThat(t1.rateSectorsPerSecond()).isEqualTo(20_400);
        RateTerms t2 = pi.update(1_000_000, 200_000, true, ROOMY, s);
        assertThat(t2.integralScaled()).isEqualTo(800);
        assertThat(t2.rateSectorsPerSecond()).isEqualTo(20_800);
        assertThat(t2.changeSectorsPerSecond()).isEqualTo(400);
        RateTerms frozen = pi.update(1_000_000, 200_000, false, ROOMY, s); // not keeping up: integral holds
        assertThat(frozen.integralFrozen()).isTrue();
        assertThat(frozen.integralScaled()).isEqualTo(800);
        RateTerms below = pi.update(100_000, 200_000, false, ROOMY, s); // error -100000: integral shrinks
        assertThat(below.proportional()).isEqualTo(-2_500);
        assertThat(below.integralSectorSeconds()).isEqualTo(7_500_000);
        assertThat(below.rateSectorsPerSecond()).isEqualTo(8); // -2500 + 750 clamps to the 8 sectors/s floor
        RateTerms capped = pi.update(10_000_000, 0, true,
                ROOMY, s.toBuilder().rateMaxSectorsPerSecond(1000).build());
        assertThat(capped.rateSectorsPerSecond()).isEqualTo(1000);
    }

    @Test
    void fragmentationBoostRaisesPWhenFewDirtySectorsFillManyBuckets() {
        // Proves bcache's boost: 60 % of buckets in use, fragment > 3 → P = dirty/buckets * 10 * (60 - 57).
        RateController pi = new RateController();
        RateController.Space fragmented = new RateController.Space(60, 600, 2048);
        RateTerms t = pi.update(60_000, 50_000, true, fragmented, WritebackSettings.defaults());
        assertThat(t.fragmentBoost()).isEqualTo(60_000 / 600 * 30);
        assertThat(t.proportional()).isEqualTo(3_000);
        RateTerms off = new RateController().update(60_000, 50_000, true, fragmented,
                WritebackSettings.defaults().toBuilder().fragmentBoost(false).build());
        assertThat(off.proportional()).isEqualTo(250);
    }

    @Test
    void idleDetectorSeesIdleWithinTwoSamplesAndBusyWithinOne() {
        // Proves the early-flush reactions with 100 ms samples: idle <= 200 ms after the last I/O, busy <= 100 ms.
        IdleDetector d = new IdleDetector();
        assertThat(d.sample(5, 100 * MS, 100 * MS)).isFalse(); // first sample: activity
        assertThat(d.sample(5, 200 * MS, 100 * MS)).isTrue(); // one quiet period
        assertThat(d.sample(6, 300 * MS, 100 * MS)).isFalse(); // I/O seen: busy at once
        assertThat(d.sample(6, 400 * MS, 100 * MS)).isTrue();
        IdleDetector classic = new IdleDetector();
        classic.sample(1, 0, 30_000 * MS);
        assertThat(classic.sample(1, 29_900 * MS, 30_000 * MS)).isFalse();
        assertThat(classic.sample(1, 30_000 * MS, 30_000 * MS)).isTrue();
    }

    @Test
    void runsMergeOnlyAdjacentKeysUpToTheMaximum() {
        // Proves merge planning: adjacency in issue order and the size cap split runs; sequences are consecutive.
        List<WritebackRun> runs = WritebackRun.plan(List.of(key(0, 8), key(8, 8), key(16, 8), key(40, 8),
                key(48, 16), key(64, 8)), 16, 7);
        assertThat(runs).extracting(r -> r.startSector).containsExactly(0L, 16L, 40L, 48L, 64L);
        assertThat(runs).extracting(r -> r.lengthSectors).containsExactly(16, 8, 8, 16, 8);
        assertThat(runs).extracting(r -> r.sequence).containsExactly(7L, 8L, 9L, 10L, 11L);
    }

    @Test
    void pacerSpacesPassesAtTheRateWithinBcacheBounds() {
        // Proves pacing: 5000 sectors at 10000 sectors/s push the next start 0.5 s on; at most 2.5 s ahead.
        Pacer pacer = new Pacer();
        pacer.spent(5000, 10_000, 1_000 * MS);
        assertThat(pacer.nextNs()).isEqualTo(500 * MS); // from now - 2 s at most behind: max(0, -1 s) + 0.5 s
        assertThat(pacer.mayStart(1_000 * MS)).isTrue();
        pacer.spent(5000, 10_000, 1_000 * MS);
        assertThat(pacer.nextNs()).isEqualTo(1_000 * MS);
        pacer.spent(1_000_000, 10_000, 1_000 * MS);
        assertThat(pacer.nextNs()).isEqualTo(3_500 * MS);
        assertThat(pacer.keepingUp(3_000 * MS)).isTrue();
    }

    @Test
    void settingsRejectNonsense() {
        // Proves validation: every knob has a range and relations between knobs hold.
        assertThatThrownBy(() -> WritebackSettings.defaults().toBuilder().percent(101).build())
                .hasMessageContaining("percent");
        assertThatThrownBy(() -> WritebackSettings.defaults().toBuilder().keysPerPassBusy(100).build())
                .hasMessageContaining("keys_per_pass_busy");
        assertThatThrownBy(() -> WritebackSettings.defaults().toBuilder().rateMaxSectorsPerSecond(4).build())
                .hasMessageContaining("rate_max");
    }
}
