package io.blockcache.backing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class S3BackoffTest {
    @Test
    void delaysDoubleFromTwoHundredMillisecondsToTenSecondsWithJitterInTheUpperHalf() {
        // Proves each delay lies in [step / 2, step] for step = 200 ms x 2^n capped at 10 s, computed by hand here.
        long[] stepsMs = {200, 400, 800, 1_600, 3_200, 6_400, 10_000, 10_000, 10_000};
        S3Backoff backoff = new S3Backoff(1);
        for (int round = 0; round < 50; round++) {
            for (int n = 0; n < stepsMs.length; n++) {
                long stepNs = stepsMs[n] * 1_000_000L;
                assertThat(backoff.delayNs(n)).as("retry " + n).isBetween(stepNs / 2, stepNs);
            }
        }
        assertThat(backoff.delayNs(1_000)).isBetween(5_000_000_000L, 10_000_000_000L);
        assertThatThrownBy(() -> backoff.delayNs(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theSameSeedGivesTheSameDelaysAndAnotherSeedOthers() {
        // Proves the jitter is seeded: a run repeats from its seed, and two volumes' devices do not retry in step.
        S3Backoff a = new S3Backoff(42);
        S3Backoff b = new S3Backoff(42);
        S3Backoff c = new S3Backoff(43);
        boolean differs = false;
        for (int n = 0; n < 20; n++) {
            long delay = a.delayNs(n % 7);
            assertThat(b.delayNs(n % 7)).isEqualTo(delay);
            differs |= c.delayNs(n % 7) != delay;
        }
        assertThat(differs).isTrue();
    }
}
