package io.blockcache.writeback;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class OverloadDetectorTest {
    private static final long TARGET = 1000;
    private static final long EARLY = 2000;

    @Test
    void risingAboveTheTargetForTwoUpdatesOrPassingTheEarlyMarkMeansOverloadUntilBackAtTheTarget() {
        // Proves the decision: above the target but not rising, never; rising for two rate updates in a row, yes; at
        // the early mark at once; and it holds until the dirty data is back at the target, not just below the mark.
        OverloadDetector d = new OverloadDetector();
        d.rateUpdate(1500, TARGET);
        d.rateUpdate(1400, TARGET); // above the target, falling: the PI rate copes
        assertThat(d.sample(1400, TARGET, EARLY)).isFalse();
        d.rateUpdate(1450, TARGET);
        assertThat(d.sample(1450, TARGET, EARLY)).as("one rising update").isFalse();
        d.rateUpdate(1500, TARGET);
        assertThat(d.sample(1500, TARGET, EARLY)).as("two rising updates").isTrue();
        assertThat(d.sample(1100, TARGET, EARLY)).as("still above the target").isTrue();
        assertThat(d.sample(1000, TARGET, EARLY)).as("back at the target").isFalse();
        assertThat(d.sample(1999, TARGET, EARLY)).as("below the early mark, not rising").isFalse();
        assertThat(d.sample(2000, TARGET, EARLY)).as("at the early mark").isTrue();
    }

    @Test
    void aLightFrontEndBelowTheTargetIsNeverOverloaded() {
        // Proves the seeds' case is untouched: dirty data rising but at or below the target never counts.
        OverloadDetector d = new OverloadDetector();
        for (long dirty = 0; dirty <= TARGET; dirty += 100) {
            d.rateUpdate(dirty, TARGET);
            assertThat(d.sample(dirty, TARGET, EARLY)).as("dirty %s", dirty).isFalse();
        }
    }
}
