package io.blockcache.volume;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The epoch bookkeeping of dirty sectors: ranges, counts per epoch, the oldest epoch. */
class DirtyEpochsTest {
    @Test
    void rangesAreSplitAndCountedExactly() {
        // Proves set/clear keep exact per-epoch counts when ranges are cut at the head, in the middle and at the
        // tail (expected values by hand).
        DirtyEpochs epochs = new DirtyEpochs();
        epochs.set(0, 8, 1);
        assertThat(epochs.sectors()).as("not tracking: nothing recorded").isZero();
        epochs.startTracking();
        assertThat(epochs.current()).isEqualTo(DirtyEpochs.ORDER_UNKNOWN + 1);
        assertThat(epochs.oldest()).isEqualTo(DirtyEpochs.NONE);
        epochs.set(0, 100, 1);          // [0,100) e1
        epochs.set(40, 20, 2);          // [0,40) e1, [40,60) e2, [60,100) e1
        assertThat(epochs.sectors()).isEqualTo(100);
        assertThat(epochs.epochsHeld()).isEqualTo(2);
        assertThat(epochs.oldest()).isEqualTo(1);
        epochs.clear(30, 40);           // [0,30) e1, [70,100) e1
        assertThat(epochs.sectors()).isEqualTo(60);
        assertThat(epochs.epochsHeld()).isEqualTo(1);
        assertThat(epochs.anyOlderThan(30, 40, 5)).isFalse(); // nothing dirty there now
        assertThat(epochs.anyOlderThan(69, 2, 2)).isTrue();
        assertThat(epochs.anyNewerThan(0, 100, 1)).isFalse();
        epochs.set(95, 10, 3);          // [95,105) e3 cuts the tail of [70,100)
        assertThat(epochs.sectors()).isEqualTo(60 - 5 + 10);
        assertThat(epochs.anyNewerThan(90, 6, 1)).isTrue();
        epochs.clear(0, 95);
        assertThat(epochs.oldest()).isEqualTo(3);
        epochs.clear(0, 1000);
        assertThat(epochs.sectors()).isZero();
        assertThat(epochs.oldest()).isEqualTo(DirtyEpochs.NONE);
    }

    @Test
    void closingAnEpochMovesTheCurrentOne() {
        // Proves FLUSH/FUA bookkeeping: each close starts a new epoch; writes recorded before keep theirs.
        DirtyEpochs epochs = new DirtyEpochs();
        epochs.startTracking();
        long first = epochs.current();
        epochs.set(0, 8, first);
        assertThat(epochs.close()).isEqualTo(first + 1);
        assertThat(epochs.anyOlderThan(0, 8, epochs.current())).isTrue();
        assertThat(epochs.anyOlderThan(8, 8, epochs.current())).isFalse();
    }
}
