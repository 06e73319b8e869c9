package io.blockcache.admin;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The recent past of the dashboard's series, kept by the server so that a page reload keeps its charts: a ring of
 * {@value #FINE_SLOTS} one-second slots (the last hour) and a ring of {@value #COARSE_SLOTS} one-minute slots (the
 * last day), each slot one {@code double} per series. A minute's slot is made from that minute's seconds when the
 * next minute starts: the mean of the seconds that have a value ({@link Merge#MEAN}: rates, gauges) or their largest
 * ({@link Merge#MAX}: a tail latency, where a mean would hide the bad second). A second with no sample, or a series
 * with no value in it, reads NaN (a gap, never the last value).
 *
 * <p>Memory bound: at most {@value #SERIES_MAX} series (later ones are counted in {@link #seriesRefused} and not
 * kept), each {@code 8 × (FINE_SLOTS + COARSE_SLOTS)} = 40,320 bytes, plus the two rings' slot times: at most
 * {@link #MEMORY_BYTES_MAX} (about 5 MiB; docs/OPERATIONS.md "Monitoring"). All of it is allocated as series appear,
 * never per sample.
 *
 * <p>Time comes from the caller (whole seconds since the epoch), so tests drive it with a fake clock. Thread rule:
 * any thread; every method holds the monitor (one writer a second, a few readers).
 */
final class MetricHistory {
    /** One hour at one second: the range an operator watches live. */
    static final int FINE_SLOTS = 3600;
    /** One day at one minute: "what happened overnight". */
    static final int COARSE_SLOTS = 1440;
    static final int COARSE_STEP_SECONDS = 60;
    /** A dozen series a volume and three a device: room for about eight volumes. */
    static final int SERIES_MAX = 128;
    static final long SERIES_BYTES = 8L * (FINE_SLOTS + COARSE_SLOTS);
    /** The slot-time arrays of both rings plus every series at its largest. */
    static final long MEMORY_BYTES_MAX = SERIES_BYTES + SERIES_MAX * SERIES_BYTES;
    /** The longest range served: the coarse ring. */
    static final long RANGE_SECONDS_MAX = (long) COARSE_SLOTS * COARSE_STEP_SECONDS;

    /** How a minute's slot is made from its seconds. */
    enum Merge { MEAN, MAX }

    /** One value of one series in one sample. */
    record Point(String series, Merge merge, double value) {
    }

    /**
     * Values of a range: {@code values} of each series at {@code firstSecond + i × stepSeconds}, NaN where none.
     */
    record Window(long firstSecond, int stepSeconds, int points, Map<String, double[]> values) {
    }

    private final long[] fineSecond = new long[FINE_SLOTS];
    private final long[] coarseMinute = new long[COARSE_SLOTS];
    private final Map<String, Series> series = new LinkedHashMap<>(); // insertion order: the order of the JSON
    private long lastSecond = -1;
    private long openMinute = -1;
    private long seriesRefused;
    private long samplesRefused;

    MetricHistory() {
        Arrays.fill(fineSecond, -1);
        Arrays.fill(coarseMinute, -1);
    }

    /**
     * Records the sample of {@code epochSecond}. A second not after the last recorded one (a clock that stepped back,
     * two samples in one second) is refused and counted: the ring's order is its slots' order.
     */
    synchronized void record(long epochSecond, List<Point> points) {
        if (epochSecond <= lastSecond || epochSecond < 0) {
            samplesRefused++;
            return;
        }
        long minute = epochSecond / COARSE_STEP_SECONDS;
        if (openMinute >= 0 && minute != openMinute) {
            closeMinute();
        }
        openMinute = minute;
        int slot = (int) (epochSecond % FINE_SLOTS);
        if (fineSecond[slot] != epochSecond) {
            for (Series one : series.values()) {
                one.fine[slot] = Double.NaN;
            }
            fineSecond[slot] = epochSecond;
        }
        for (Point point : points) {
            Series one = series.get(point.series());
            if (one == null) {
                if (series.size() >= SERIES_MAX) {
                    seriesRefused++;
                    continue;
                }
                one = new Series(point.merge());
                series.put(point.series(), one);
            }
            one.fine[slot] = point.value();
            one.add(point.value());
        }
        lastSecond = epochSecond;
    }

    /** Writes the open minute's slot from its seconds and starts the next. */
    private void closeMinute() {
        int slot = (int) (openMinute % COARSE_SLOTS);
        coarseMinute[slot] = openMinute;
        for (Series one : series.values()) {
            one.coarse[slot] = one.merged();
            one.reset();
        }
    }

    /** As {@link #window(long, long)} up to the newest sample. */
    synchronized Window window(long rangeSeconds) {
        return window(rangeSeconds, lastSecond);
    }

    /**
     * The last {@code rangeSeconds} up to {@code endSecond} or the newest sample, whichever is later (so that a
     * sampler that stopped shows as a gap up to now, not as a chart that ends in the past): from the second ring at
     * one-second steps up to an hour, from the minute ring at one-minute steps beyond (the open minute's slot from
     * its seconds so far).
     *
     * @throws IllegalArgumentException if the range is not in [1 s, {@link #RANGE_SECONDS_MAX}]
     */
    synchronized Window window(long rangeSeconds, long endSecond) {
        if (rangeSeconds < 1 || rangeSeconds > RANGE_SECONDS_MAX) {
            throw new IllegalArgumentException("a range is 1 s to " + RANGE_SECONDS_MAX + " s: " + rangeSeconds);
        }
        Map<String, double[]> values = new LinkedHashMap<>();
        if (rangeSeconds <= FINE_SLOTS) {
            int points = (int) rangeSeconds;
            long first = Math.max(lastSecond, endSecond) - points + 1;
            for (Map.Entry<String, Series> entry : series.entrySet()) {
                double[] out = new double[points];
                for (int i = 0; i < points; i++) {
                    long second = first + i;
                    int slot = (int) Math.floorMod(second, (long) FINE_SLOTS);
                    out[i] = second >= 0 && fineSecond[slot] == second ? entry.getValue().fine[slot] : Double.NaN;
                }
                values.put(entry.getKey(), out);
            }
            return new Window(first, 1, points, values);
        }
        int points = (int) ((rangeSeconds + COARSE_STEP_SECONDS - 1) / COARSE_STEP_SECONDS);
        long firstMinute = Math.max(openMinute, endSecond / COARSE_STEP_SECONDS) - points + 1;
        for (Map.Entry<String, Series> entry : series.entrySet()) {
            double[] out = new double[points];
            for (int i = 0; i < points; i++) {
                long minute = firstMinute + i;
                int slot = (int) Math.floorMod(minute, (long) COARSE_SLOTS);
                out[i] = minute == openMinute ? entry.getValue().merged()
                        : minute >= 0 && coarseMinute[slot] == minute ? entry.getValue().coarse[slot] : Double.NaN;
            }
            values.put(entry.getKey(), out);
        }
        return new Window(firstMinute * COARSE_STEP_SECONDS, COARSE_STEP_SECONDS, points, values);
    }

    /** Bytes held now: the slot times and each series kept; never above {@link #MEMORY_BYTES_MAX}. */
    synchronized long memoryBytes() {
        return 8L * (FINE_SLOTS + COARSE_SLOTS) + series.size() * SERIES_BYTES;
    }

    /** Series kept now. */
    synchronized List<String> seriesNames() {
        return new ArrayList<>(series.keySet());
    }

    /** Values of series beyond {@link #SERIES_MAX}, not kept. */
    synchronized long seriesRefused() {
        return seriesRefused;
    }

    /** Samples refused for a second not after the last one. */
    synchronized long samplesRefused() {
        return samplesRefused;
    }

    /** One series' two rings and the open minute's running figures. */
    private static final class Series {
        final Merge merge;
        final double[] fine = new double[FINE_SLOTS];
        final double[] coarse = new double[COARSE_SLOTS];
        double sum;
        int count;
        double max = Double.NEGATIVE_INFINITY;

        Series(Merge merge) {
            this.merge = merge;
            Arrays.fill(fine, Double.NaN);
            Arrays.fill(coarse, Double.NaN);
        }

        void add(double value) {
            if (Double.isNaN(value)) {
                return;
            }
            sum += value;
            count++;
            max = Math.max(max, value);
        }

        double merged() {
            return count == 0 ? Double.NaN : merge == Merge.MEAN ? sum / count : max;
        }

        void reset() {
            sum = 0;
            count = 0;
            max = Double.NEGATIVE_INFINITY;
        }
    }
}
