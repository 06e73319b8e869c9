package io.blockcache.admin;

import io.blockcache.device.DurationHistogram;
import io.blockcache.device.FileSpace;
import io.blockcache.device.ObjectStoreStats;
import java.nio.file.Path;
import java.util.List;

/**
 * A snapshot with every part present (two volumes, one with a damage map; a remote and an S3 backing; the NBD server,
 * the admin API, a file) and a distinct, non-zero value in every field, for tests of what renders it.
 */
final class StatsSamples {
    private StatsSamples() {
    }

    /** The full snapshot; {@code base} shifts every number, so two calls with different bases differ everywhere. */
    static StatsSnapshot full(long base) {
        long n = base;
        DrainSnapshot drain = new DrainSnapshot(1, "running", n + 1, n + 2, n + 3.5, n + 4, null, n + 5, n + 6, 0, 0,
                0.0, null, false, false);
        WritebackSnapshot.Rate rate = new WritebackSnapshot.Rate(n + 10, n + 11, n + 12, n + 13, n + 14, n + 15,
                n + 16, true);
        WritebackSnapshot.Epochs epochs = new WritebackSnapshot.Epochs("epochs", n + 20, n + 21, 22, 23, n + 24, true,
                "logging", n + 25);
        WritebackSnapshot writeback = new WritebackSnapshot(true, "modern", "lba", true, true, n + 30, n + 31, n + 32,
                n + 33, n + 34, n + 35, n + 36, n + 37, n + 38.25, rate, n + 39, n + 40, n + 41, n + 42, "last failure",
                null, drain, epochs, "backing file deleted", histogram(n + 10));
        StatsSnapshot.LatencySummary latency = new StatsSnapshot.LatencySummary(n + 50, 51_000, 52_000, 53_000,
                54_000.0);
        StatsSnapshot.BypassSnapshot bypass = new StatsSnapshot.BypassSnapshot(n + 60, n + 61, n + 62, n + 63, n + 64,
                65_000_000, 66_000_000, 67.5, 68.5, 69_000, 70_000);
        StatsSnapshot.DamageMapSnapshot map = new StatsSnapshot.DamageMapSnapshot(n + 80, n + 81, n + 82, n + 83,
                n + 84, n + 85, n + 86, n + 87);
        List<DurationHistogram.Counts> byOp = List.of(histogram(n + 1), histogram(n + 2), histogram(n + 3),
                histogram(n + 4));
        StatsSnapshot.VolumeSnapshot first = new StatsSnapshot.VolumeSnapshot("alpha", n + 90, "writeback", n + 91,
                n + 92, n + 93, n + 94, n + 95, n + 96, n + 97, n + 98, n + 99, latency, writeback, map, bypass, byOp,
                VolumeHealth.of(VolumeHealth.Reason.BACKING_CHANGED),
                new StatsSnapshot.AdmissionSnapshot(n + 71, n + 72, n + 73, n + 74, n + 75));
        StatsSnapshot.VolumeSnapshot second = new StatsSnapshot.VolumeSnapshot("beta", n + 190, "writethrough",
                n + 191, n + 192, n + 193, n + 194, n + 195, n + 196, n + 197, n + 198, n + 199, latency, writeback,
                null, bypass, List.of(histogram(n + 5), histogram(n + 6), histogram(n + 7), histogram(n + 8)),
                VolumeHealth.OK, new StatsSnapshot.AdmissionSnapshot(n + 171, n + 172, n + 173, n + 174, n + 175));
        StatsSnapshot.DeviceSnapshot cacheDevice = new StatsSnapshot.DeviceSnapshot("cache", n + 100, n + 101,
                n + 102, n + 103, null, null, "replaced");
        StatsSnapshot.CacheSnapshot cache = new StatsSnapshot.CacheSnapshot(4096, 110, 111, 112, 113, 114, 115, 116,
                109, n + 117, n + 118, n + 119, 120, n + 121, n + 122, cacheDevice);
        StatsSnapshot.RemoteSnapshot remote = new StatsSnapshot.RemoteSnapshot(true, "connected", n + 130, n + 131,
                n + 132, n + 133);
        ObjectStoreStats s3 = new ObjectStoreStats(n + 140, n + 141, n + 142, n + 143, n + 144, n + 145, n + 146, 147,
                148, n + 149, n + 150, true, "owned by host:/cache");
        List<StatsSnapshot.DeviceSnapshot> backings = List.of(
                new StatsSnapshot.DeviceSnapshot("alpha", n + 160, n + 161, n + 162, n + 163, remote, null, null),
                new StatsSnapshot.DeviceSnapshot("beta", n + 170, n + 171, n + 172, n + 173, null, s3, null));
        GcSnapshot gc = new GcSnapshot(true, n + 200, 201_000_000, 202_000_000, 203_000_000, 204_000_000,
                new GcSnapshot.Buckets(205, 206, 207, 208, 209, 210, 211, 212), n + 213, n + 214, n + 215, n + 216,
                n + 217, n + 218, histogram(n + 9));
        NbdSnapshot nbd = new NbdSnapshot(n + 300, n + 301, n + 302, n + 303, n + 304, n + 305, n + 306, n + 307,
                n + 308, n + 309, n + 310, n + 311, n + 312, n + 313, n + 314, n + 315, n + 316, n + 317, n + 318,
                n + 319, n + 320);
        StatsSnapshot.AdminSnapshot admin = new StatsSnapshot.AdminSnapshot(true, n + 400, n + 401, n + 402, n + 403);
        FileSpace file = new FileSpace("cache", Path.of("/var/cache.img"), 1L << 30, 1L << 20, 1L << 25);
        return new StatsSnapshot(List.of(first, second), cache, backings, gc, nbd, admin, List.of(file));
    }

    /** A histogram with base + i durations in bucket i, each taken as {@code base} ms for the sum. */
    static DurationHistogram.Counts histogram(long base) {
        long[] counts = new long[DurationHistogram.BUCKETS];
        long total = 0;
        for (int bucket = 0; bucket < counts.length; bucket++) {
            counts[bucket] = base + bucket;
            total += counts[bucket];
        }
        return new DurationHistogram.Counts(counts, total * base * 1_000_000);
    }
}
