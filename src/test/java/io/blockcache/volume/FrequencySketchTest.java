package io.blockcache.volume;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The TinyLFU sketch: doorkeeper, counts, saturation, halving and its memory. */
class FrequencySketchTest {
    @Test
    void countsSightingsThroughTheDoorkeeper() {
        // Proves the estimate: 0 unseen, 1 after the first sighting (doorkeeper only), n after n (counters + 1).
        FrequencySketch sketch = new FrequencySketch(1000, 1_000_000);
        assertThat(sketch.estimate(42)).isZero();
        sketch.increment(42);
        assertThat(sketch.estimate(42)).isEqualTo(1);
        sketch.increment(42);
        sketch.increment(42);
        assertThat(sketch.estimate(42)).isEqualTo(3);
        assertThat(sketch.estimate(43)).isZero();
    }

    @Test
    void saturatesAtSixteenAndHalvesAfterTheSampleSize() {
        // Proves the bounds and the reset: 40 sightings read as 16 (15 + doorkeeper); after the sample size of 64
        // sightings the counters are halved (15 -> 7) and the doorkeeper cleared, so the key reads 7.
        FrequencySketch sketch = new FrequencySketch(1000, 64);
        for (int i = 0; i < 40; i++) {
            sketch.increment(7);
        }
        assertThat(sketch.estimate(7)).isEqualTo(16);
        for (int i = 0; i < 24; i++) {
            sketch.increment(1000 + i);
        }
        assertThat(sketch.resets()).isEqualTo(1);
        assertThat(sketch.estimate(7)).isEqualTo(0); // the doorkeeper was cleared: unknown until seen again
        sketch.increment(7);
        assertThat(sketch.estimate(7)).isEqualTo(8); // 7 in the counters + the doorkeeper's 1
    }

    @Test
    void keepsDistinctKeysApartAtItsSize() {
        // Proves the width: 1,000 keys seen 3 times each in a sketch for 1,000 keys; 1,000 new keys read 0 or 1
        // almost always (at most 1 % over-counted past the doorkeeper).
        FrequencySketch sketch = new FrequencySketch(1000, 1_000_000);
        for (int round = 0; round < 3; round++) {
            for (long k = 0; k < 1000; k++) {
                sketch.increment(k);
            }
        }
        int inflated = 0;
        for (long k = 100_000; k < 101_000; k++) {
            inflated += sketch.estimate(k) > 1 ? 1 : 0;
        }
        assertThat(inflated).isLessThanOrEqualTo(10);
        assertThat(sketch.memoryBytes()).isEqualTo(4096 * 2 + 4096 / 8); // 4 x 1000 -> 4096 columns
    }

    @Test
    void refusesBadSizes() {
        // Proves the argument checks.
        assertThatThrownBy(() -> new FrequencySketch(0, 10)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new FrequencySketch(10, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
