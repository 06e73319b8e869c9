package io.blockcache.engine;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Recovery slices are sized by what the slices before them cost, so cold code cannot hold the loop for long. */
class SliceSizerTest {
    private static final int MAX = 4096;

    @Test
    void aPhaseStartsSmallAndFastSlicesDoubleUpToTheMaximum() {
        // Proves growth is at most 2x per slice, capped, and that a loop whose time does not move (simulation)
        // reaches the maximum in a few slices.
        SliceSizer sizer = new SliceSizer(MAX);
        assertThat(sizer.units()).isEqualTo(SliceSizer.UNITS_START);
        sizer.measured(sizer.units(), 0);
        assertThat(sizer.units()).isEqualTo(2 * SliceSizer.UNITS_START);
        sizer.measured(sizer.units(), SliceSizer.TARGET_NS / 2);
        assertThat(sizer.units()).isEqualTo(4 * SliceSizer.UNITS_START);
        for (int i = 0; i < 10; i++) {
            sizer.measured(sizer.units(), 0);
        }
        assertThat(sizer.units()).isEqualTo(MAX);
    }

    @Test
    void aSlowSliceShrinksTheNextToWhatFitsTheTargetButNotBelowTheMinimum() {
        // Proves the cold-code case: 4096 units in 8 ms (seen in bench recovery) -> 1024 units for the next slice.
        SliceSizer sizer = new SliceSizer(MAX);
        for (int i = 0; i < 4; i++) {
            sizer.measured(sizer.units(), 0);
        }
        sizer.measured(MAX, 4 * SliceSizer.TARGET_NS);
        assertThat(sizer.units()).isEqualTo(MAX / 4);
        sizer.measured(sizer.units(), 1000 * SliceSizer.TARGET_NS);
        assertThat(sizer.units()).isEqualTo(SliceSizer.UNITS_MIN);
    }

    @Test
    void aSliceBetweenHalfTheTargetAndTheTargetKeepsTheSize() {
        SliceSizer sizer = new SliceSizer(MAX);
        sizer.measured(sizer.units(), SliceSizer.TARGET_NS * 3 / 4);
        assertThat(sizer.units()).isEqualTo(SliceSizer.UNITS_START);
    }

    @Test
    void aNewPhaseStartsSmallAgainAndASliceWithoutUnitsChangesNothing() {
        SliceSizer sizer = new SliceSizer(MAX);
        for (int i = 0; i < 4; i++) {
            sizer.measured(sizer.units(), 0);
        }
        sizer.measured(0, 100 * SliceSizer.TARGET_NS); // a chunk decode: no units to scale by
        assertThat(sizer.units()).isEqualTo(MAX);
        sizer.phaseEntered();
        assertThat(sizer.units()).isEqualTo(SliceSizer.UNITS_START);
    }
}
