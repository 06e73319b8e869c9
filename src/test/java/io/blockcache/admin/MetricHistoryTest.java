package io.blockcache.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blockcache.admin.MetricHistory.Merge;
import io.blockcache.admin.MetricHistory.Point;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The server-kept history's rings, driven second by second with a fake clock (the caller's epoch seconds). */
class MetricHistoryTest {
    /** A start on a minute boundary, far from zero: real epoch seconds are large. */
    private static final long T0 = 1_796_000_000L / 60 * 60;

    private static List<Point> one(String name, Merge merge, double value) {
        return List.of(new Point(name, merge, value));
    }

    @Test
    void aRangeUpToAnHourIsEverySecondWithGapsWhereNoSampleCame() {
        // Proves the second ring: the last N seconds in order, ending at the newest sample, NaN for a missed second
        // and for a series without a value in a second, never the value before.
        MetricHistory history = new MetricHistory();
        history.record(T0, one("a", Merge.MEAN, 1));
        history.record(T0 + 1, one("a", Merge.MEAN, 2));
        history.record(T0 + 3, List.of(new Point("a", Merge.MEAN, 4), new Point("b", Merge.MEAN, 40)));
        history.record(T0 + 4, one("b", Merge.MEAN, 50));

        MetricHistory.Window window = history.window(5);
        assertThat(window.firstSecond()).isEqualTo(T0);
        assertThat(window.stepSeconds()).isEqualTo(1);
        assertThat(window.values().get("a")).containsExactly(1, 2, Double.NaN, 4, Double.NaN);
        assertThat(window.values().get("b")).containsExactly(Double.NaN, Double.NaN, Double.NaN, 40, 50);
        assertThat(history.window(2).values().get("a")).containsExactly(4, Double.NaN);
    }

    @Test
    void aSamplerThatStoppedShowsAsAGapUpToNow() {
        // Proves a window ending at "now" past the newest sample: the seconds since read as gaps, in the second
        // ring and in the minute ring, instead of a chart whose right edge is silently in the past.
        MetricHistory history = new MetricHistory();
        history.record(T0, one("a", Merge.MEAN, 1));
        history.record(T0 + 1, one("a", Merge.MEAN, 2));
        MetricHistory.Window late = history.window(4, T0 + 3);
        assertThat(late.firstSecond()).isEqualTo(T0);
        assertThat(late.values().get("a")).containsExactly(1, 2, Double.NaN, Double.NaN);
        assertThat(history.window(4, T0).values().get("a")).as("an end before the newest sample: the newest")
                .containsExactly(Double.NaN, Double.NaN, 1, 2);
        double[] day = history.window(3 * 3600, T0 + 150).values().get("a");
        assertThat(day[day.length - 3]).isEqualTo(1.5);
        assertThat(day[day.length - 2]).isNaN();
        assertThat(day[day.length - 1]).isNaN();
    }

    @Test
    void aSecondNotAfterTheLastIsRefused() {
        // Proves a clock that steps back, or two samples in one second, cannot overwrite or reorder the ring.
        MetricHistory history = new MetricHistory();
        history.record(T0 + 10, one("a", Merge.MEAN, 1));
        history.record(T0 + 10, one("a", Merge.MEAN, 2));
        history.record(T0 + 5, one("a", Merge.MEAN, 3));
        assertThat(history.samplesRefused()).isEqualTo(2);
        assertThat(history.window(1).values().get("a")).containsExactly(1);
    }

    @Test
    void theSecondRingKeepsAnHourAndThenOverwritesTheOldest() {
        // Proves the ring's length: after 3600 + 100 seconds, the hour asked for is the newest hour, and seconds
        // older than an hour read as gaps, not as the values that were overwritten.
        MetricHistory history = new MetricHistory();
        int seconds = MetricHistory.FINE_SLOTS + 100;
        for (int i = 0; i < seconds; i++) {
            history.record(T0 + i, one("a", Merge.MEAN, i));
        }
        double[] hour = history.window(3600).values().get("a");
        assertThat(hour).hasSize(3600);
        assertThat(hour[0]).isEqualTo(100);
        assertThat(hour[3599]).isEqualTo(seconds - 1);
        // Longer than an hour comes from the minute ring.
        assertThat(history.window(3660).stepSeconds()).isEqualTo(60);
    }

    @Test
    void aMinuteIsTheMeanOfItsSecondsOrTheirMaximumAndTheOpenMinuteIsIncluded() {
        // Proves downsampling: 60 seconds of 0..59 make a minute of mean 29.5 (MEAN) and 59 (MAX); a minute with a
        // missing second averages the seconds it has; a minute with none is a gap; the open minute shows its
        // seconds so far.
        MetricHistory history = new MetricHistory();
        for (int i = 0; i < 60; i++) {
            history.record(T0 + i, List.of(new Point("rate", Merge.MEAN, i), new Point("p99", Merge.MAX, i)));
        }
        for (int i = 60; i < 120; i += 2) { // every other second: 60, 62, ..., 118
            history.record(T0 + i, List.of(new Point("rate", Merge.MEAN, i), new Point("p99", Merge.MAX, Double.NaN))
            );
        }
        // Minute 2 has no sample; minute 3 is open with two seconds so far.
        history.record(T0 + 180, one("rate", Merge.MEAN, 10));
        history.record(T0 + 181, one("rate", Merge.MEAN, 20));

        MetricHistory.Window day = history.window(24 * 3600);
        assertThat(day.stepSeconds()).isEqualTo(60);
        assertThat(day.points()).isEqualTo(1440);
        assertThat(day.firstSecond() + 60L * (day.points() - 1)).as("the last point is the open minute")
                .isEqualTo(T0 + 180);
        double[] rate = day.values().get("rate");
        double[] p99 = day.values().get("p99");
        int last = day.points() - 1;
        assertThat(rate[last - 3]).isEqualTo(29.5);
        assertThat(p99[last - 3]).isEqualTo(59);
        assertThat(rate[last - 2]).isEqualTo(89.0); // the mean of 60, 62, ..., 118
        assertThat(p99[last - 2]).as("a minute whose seconds had no value").isNaN();
        assertThat(rate[last - 1]).as("a minute without samples").isNaN();
        assertThat(rate[last]).isEqualTo(15.0);
        assertThat(rate[last - 4]).as("before the first sample").isNaN();
    }

    @Test
    void theMinuteRingKeepsADayAndNoMore() {
        // Proves the minute ring's length with one sample a minute for 25 hours: the day asked for holds the
        // newest 1440 minutes, the oldest of them 24 h before the open one.
        MetricHistory history = new MetricHistory();
        int minutes = 25 * 60;
        for (int m = 0; m < minutes; m++) {
            history.record(T0 + 60L * m, one("a", Merge.MEAN, m));
        }
        MetricHistory.Window day = history.window(MetricHistory.RANGE_SECONDS_MAX);
        double[] a = day.values().get("a");
        assertThat(a[0]).isEqualTo(minutes - 1440);
        assertThat(a[1439]).isEqualTo(minutes - 1);
        for (double value : a) {
            assertThat(value).isNotNaN();
        }
    }

    @Test
    void memoryIsBoundedByTheSeriesCapWhateverIsRecorded() {
        // Proves the memory bound: memory grows by one series' rings per series, stops at SERIES_MAX series (later
        // ones are refused and counted), and never passes MEMORY_BYTES_MAX, however many samples come.
        MetricHistory history = new MetricHistory();
        long empty = history.memoryBytes();
        assertThat(empty).isEqualTo(8L * (3600 + 1440));
        List<Point> many = new ArrayList<>();
        for (int i = 0; i < 3 * MetricHistory.SERIES_MAX; i++) {
            many.add(new Point("s" + i, Merge.MEAN, i));
        }
        history.record(T0, many.subList(0, 2));
        assertThat(history.memoryBytes()).isEqualTo(empty + 2 * 40_320L);
        for (int s = 1; s <= 2 * 3600; s++) {
            history.record(T0 + s, many);
        }
        assertThat(history.seriesNames()).hasSize(MetricHistory.SERIES_MAX);
        assertThat(history.seriesRefused()).isEqualTo(2L * 3600 * 2 * MetricHistory.SERIES_MAX);
        assertThat(history.memoryBytes()).isEqualTo(MetricHistory.MEMORY_BYTES_MAX);
        assertThat(MetricHistory.MEMORY_BYTES_MAX).as("as docs/OPERATIONS.md says: about 5 MiB")
                .isEqualTo(5_201_280L);
    }

    @Test
    void aRangeOutsideOneSecondToADayIsRefused() {
        // Proves the bounds of a range: none longer than the minute ring, none empty.
        MetricHistory history = new MetricHistory();
        assertThatThrownBy(() -> history.window(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> history.window(24 * 3600 + 1)).isInstanceOf(IllegalArgumentException.class);
        assertThat(HistoryJson.rangeSeconds("range=5m")).isEqualTo(300);
        assertThat(HistoryJson.rangeSeconds("x=1&range=24h")).isEqualTo(86_400);
        assertThat(HistoryJson.rangeSeconds(null)).isEqualTo(300);
        assertThat(HistoryJson.rangeSeconds("range=90")).isEqualTo(90);
        assertThatThrownBy(() -> HistoryJson.rangeSeconds("range=25h")).hasMessageContaining("1 s to 24 h");
        assertThatThrownBy(() -> HistoryJson.rangeSeconds("range=1d")).hasMessageContaining("5m, 1h, 24h");
    }
}
