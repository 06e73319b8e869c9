package io.blockcache.admin;

import io.blockcache.admin.MetricHistory.Merge;
import io.blockcache.admin.MetricHistory.Point;
import io.blockcache.device.BlockDevice;
import io.blockcache.device.DurationHistogram;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns consecutive {@link StatsSnapshot}s into the dashboard's series for {@link MetricHistory}: rates over the
 * interval between two snapshots (not since start), gauges as they are, and the front end's latency of the interval
 * from the difference of its histograms. Series are named {@code volume/NAME/KEY} and {@code device/NAME/KEY}
 * ({@code device/cache/...} for the cache device); the keys are the constants below, units last.
 *
 * <p>A counter that went down (a volume removed and added again) gives NaN for that interval, as does a volume's
 * first snapshot. Latency keys are NaN in an interval without requests, so is the read hit ratio that
 * {@link HistoryJson} derives from {@link #READ_HIT_BYTES} and {@link #READ_MISS_BYTES} when nothing was read.
 *
 * <p>Thread rule: one caller at a time (the history's sampling thread); pure, no clock of its own.
 */
final class HistorySampler {
    static final String REQUESTS = "requestsPerSecond";
    static final String READ_BYTES = "readBytesPerSecond";
    static final String WRITE_BYTES = "writeBytesPerSecond";
    static final String READ_HIT_BYTES = "readHitBytesPerSecond";
    static final String READ_MISS_BYTES = "readMissBytesPerSecond";
    static final String DIRTY_BYTES = "dirtyBytes";
    static final String WRITTEN_BACK_BYTES = "writtenBackBytesPerSecond";
    static final String WRITEBACK_RATE_BYTES = "writebackRateBytesPerSecond";
    static final String BACKING_QUEUE = "backingQueueDepth";
    static final String WRITEBACK_QUEUE = "writebackWritesInFlight";
    static final String LATENCY_MEAN_US = "latencyMeanUs";
    static final String LATENCY_P50_US = "latencyP50Us";
    static final String LATENCY_P99_US = "latencyP99Us";
    static final String ERRORS = "errorsPerSecond";

    private static final long SECTOR_BYTES = BlockDevice.SECTOR_BYTES;

    /** Counters of the previous snapshot, by series name; the latency histograms by volume. */
    private Map<String, Double> previousCounters = new HashMap<>();
    private Map<String, long[]> previousBuckets = new HashMap<>();
    private Map<String, Long> previousSumNs = new HashMap<>();
    private long previousMs = -1;

    /** The points of {@code now}, taken at {@code nowMs} (milliseconds on any clock that only goes forward). */
    List<Point> points(StatsSnapshot now, long nowMs) {
        double seconds = previousMs < 0 || nowMs <= previousMs ? Double.NaN : (nowMs - previousMs) / 1000.0;
        List<Point> points = new ArrayList<>();
        Map<String, Double> counters = new HashMap<>();
        Map<String, long[]> buckets = new HashMap<>();
        Map<String, Long> sums = new HashMap<>();
        for (StatsSnapshot.VolumeSnapshot volume : now.volumes()) {
            String at = "volume/" + volume.name() + "/";
            long reads = volume.readHitSectors() + volume.readMissSectors();
            long writes = volume.writeCachedSectors() + volume.writeBypassedSectors();
            rate(points, counters, at + REQUESTS, volume.latency().count(), seconds);
            rate(points, counters, at + READ_BYTES, reads * SECTOR_BYTES, seconds);
            rate(points, counters, at + WRITE_BYTES, writes * SECTOR_BYTES, seconds);
            rate(points, counters, at + READ_HIT_BYTES, volume.readHitSectors() * SECTOR_BYTES, seconds);
            rate(points, counters, at + READ_MISS_BYTES, volume.readMissSectors() * SECTOR_BYTES, seconds);
            points.add(new Point(at + DIRTY_BYTES, Merge.MEAN, volume.dirtyBytes()));
            WritebackSnapshot writeback = volume.writeback();
            rate(points, counters, at + WRITTEN_BACK_BYTES, writeback.writtenBackSectors() * SECTOR_BYTES, seconds);
            points.add(new Point(at + WRITEBACK_RATE_BYTES, Merge.MEAN,
                    writeback.rate().rateSectorsPerSecond() * SECTOR_BYTES));
            points.add(new Point(at + BACKING_QUEUE, Merge.MEAN, writeback.backingQueueDepth()));
            points.add(new Point(at + WRITEBACK_QUEUE, Merge.MEAN, writeback.backingWritesInFlight()));
            latency(points, at, volume, buckets, sums);
        }
        device(points, counters, now.cache().device(), "device/cache/", seconds);
        for (StatsSnapshot.DeviceSnapshot backing : now.backings()) {
            device(points, counters, backing, "device/" + backing.name() + "/", seconds);
        }
        previousCounters = counters;
        previousBuckets = buckets;
        previousSumNs = sums;
        previousMs = nowMs;
        return points;
    }

    private void device(List<Point> points, Map<String, Double> counters, StatsSnapshot.DeviceSnapshot device,
                        String at, double seconds) {
        rate(points, counters, at + READ_BYTES, device.completedReadSectors() * SECTOR_BYTES, seconds);
        rate(points, counters, at + WRITE_BYTES, device.completedWriteSectors() * SECTOR_BYTES, seconds);
        rate(points, counters, at + ERRORS, device.errors(), seconds);
    }

    /** The counter's increase per second since the previous snapshot; NaN without one or if it went down. */
    private void rate(List<Point> points, Map<String, Double> counters, String name, double value, double seconds) {
        counters.put(name, value);
        Double before = previousCounters.get(name);
        double perSecond = before == null || value < before ? Double.NaN : (value - before) / seconds;
        points.add(new Point(name, Merge.MEAN, perSecond));
    }

    /** Mean, p50 and p99 of the requests answered in the interval, from the histograms of every operation. */
    private void latency(List<Point> points, String at, StatsSnapshot.VolumeSnapshot volume,
                         Map<String, long[]> buckets, Map<String, Long> sums) {
        long[] total = new long[DurationHistogram.BUCKETS];
        long sumNs = 0;
        for (DurationHistogram.Counts op : volume.latencyByOp()) {
            for (int i = 0; i < total.length; i++) {
                total[i] += op.bucketCount(i);
            }
            sumNs += op.sumNs();
        }
        buckets.put(at, total);
        sums.put(at, sumNs);
        long[] before = previousBuckets.get(at);
        Long sumBefore = previousSumNs.get(at);
        long[] interval = new long[total.length];
        long count = 0;
        boolean valid = before != null && sumBefore != null && sumNs >= sumBefore;
        for (int i = 0; valid && i < total.length; i++) {
            interval[i] = total[i] - before[i];
            valid = interval[i] >= 0;
            count += interval[i];
        }
        boolean any = valid && count > 0;
        points.add(new Point(at + LATENCY_MEAN_US, Merge.MEAN, any ? (sumNs - sumBefore) / 1000.0 / count
                : Double.NaN));
        points.add(new Point(at + LATENCY_P50_US, Merge.MEAN, any ? quantileNs(interval, count, 0.5) / 1000.0
                : Double.NaN));
        points.add(new Point(at + LATENCY_P99_US, Merge.MAX, any ? quantileNs(interval, count, 0.99) / 1000.0
                : Double.NaN));
    }

    /**
     * The {@code q} quantile of bucket counts, interpolated linearly inside its bucket as Prometheus'
     * {@code histogram_quantile} does; in the +Inf bucket, its lower bound (10 s). {@code count} is positive.
     */
    static double quantileNs(long[] bucketCounts, long count, double q) {
        double rank = q * count;
        long seen = 0;
        for (int i = 0; i < bucketCounts.length; i++) {
            long in = bucketCounts[i];
            if (in > 0 && seen + in >= rank) {
                double lower = i == 0 ? 0 : DurationHistogram.upperBoundNs(i - 1);
                if (i == bucketCounts.length - 1) {
                    return lower;
                }
                double upper = DurationHistogram.upperBoundNs(i);
                return lower + (upper - lower) * (rank - seen) / in;
            }
            seen += in;
        }
        return DurationHistogram.upperBoundNs(bucketCounts.length - 2);
    }
}
