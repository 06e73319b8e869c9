package io.blockcache.volume;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link PinnedRanges}: merging, cutting, overlap and the counts, computed by hand. */
class PinnedRangesTest {
    private static List<String> text(PinnedRanges pins) {
        return pins.list().stream().map(r -> r[0] + "+" + r[1]).toList();
    }

    @Test
    void rangesMergeWhereTheyOverlapOrTouchAndCutAroundAnUnpin() {
        // Proves add merges overlapping and touching ranges, remove cuts inside and across ranges, and sectors()
        // is the union's size after each step.
        PinnedRanges pins = new PinnedRanges();
        assertThat(pins.add(10, 10)).isTrue();          // [10,20)
        assertThat(pins.add(20, 5)).isTrue();           // touches: [10,25)
        assertThat(pins.add(40, 10)).isTrue();          // [40,50)
        assertThat(pins.add(15, 30)).isTrue();          // swallows both: [10,50)
        assertThat(text(pins)).containsExactly("10+40");
        assertThat(pins.sectors()).isEqualTo(40);
        assertThat(pins.remove(20, 5)).isTrue();        // [10,20) [25,50)
        assertThat(text(pins)).containsExactly("10+10", "25+25");
        assertThat(pins.remove(0, 12)).isTrue();        // [12,20) [25,50)
        assertThat(pins.remove(45, 100)).isTrue();      // [12,20) [25,45)
        assertThat(text(pins)).containsExactly("12+8", "25+20");
        assertThat(pins.sectors()).isEqualTo(28);
        assertThat(pins.overlaps(20, 5)).isFalse();
        assertThat(pins.overlaps(19, 1)).isTrue();
        assertThat(pins.overlaps(44, 10)).isTrue();
        assertThat(pins.overlaps(45, 10)).isFalse();
        assertThat(pins.pinnedSectorsIn(0, 100)).isEqualTo(28);
        assertThat(pins.pinnedSectorsIn(15, 15)).isEqualTo(5 + 5);
        assertThat(pins.remove(0, 100)).isTrue();
        assertThat(pins.isEmpty()).isTrue();
        assertThat(pins.sectors()).isZero();
    }

    @Test
    void theNumberOfRangesIsBounded() {
        // Proves the bound: the (RANGES_MAX + 1)th separate range is refused and changes nothing, and an unpin that
        // would split a range past the bound is refused too.
        PinnedRanges pins = new PinnedRanges();
        for (int i = 0; i < PinnedRanges.RANGES_MAX; i++) {
            assertThat(pins.add(i * 10L, 5)).isTrue();
        }
        assertThat(pins.add(PinnedRanges.RANGES_MAX * 10L, 5)).isFalse();
        assertThat(pins.remove(1, 2)).isFalse();
        assertThat(pins.sectors()).isEqualTo(PinnedRanges.RANGES_MAX * 5L);
        assertThat(pins.add(0, 15)).as("a merge needs no new range").isTrue();
    }
}
