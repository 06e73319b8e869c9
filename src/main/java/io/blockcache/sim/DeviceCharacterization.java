package io.blockcache.sim;

import io.blockcache.device.BlockDevice;
import io.blockcache.loop.EventLoop;
import io.blockcache.loop.Prng;
import io.blockcache.loop.SimLoop;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * Measures the device models the way fio would: 4 KiB random reads and writes at queue depths 1, 4 and 32,
 * 128 KiB sequential reads and writes, and for the HDD its outer- and inner-zone sequential rate; for the object
 * store ({@code object}): random 4 KiB reads at depths 1 and 64, random 4 KiB FUA writes (each costs a GET and a PUT of
 * its chunk) and sequential whole-chunk FUA writes (PUTs only: the bandwidth cap). Each row
 * runs on a fresh {@link SimLoop} and device with its own seeded stream, so the numbers are a pure function
 * of the seed. Every row simulates a bounded number of requests (see the constants) to keep the whole run
 * well under a few seconds of wall time.
 *
 * <p>The HDD is measured with its write cache off, so that write rows show the media and not the host link.
 */
public final class DeviceCharacterization {
    /** Queue depths of the random rows: 1 (latency-bound), 4, and 32 (NCQ's depth). */
    static final int[] QUEUE_DEPTHS = {1, 4, 32};
    /** 4 KiB: the block size random-I/O figures are quoted for. */
    static final int RANDOM_REQUEST_BYTES = 4096;
    /** 128 KiB: large enough that per-request costs vanish, as in fio's usual sequential job. */
    static final int SEQUENTIAL_REQUEST_BYTES = 128 << 10;
    /** Sequential queue depth: enough to keep a device busy between completions. */
    static final int SEQUENTIAL_QUEUE_DEPTH = 4;
    /** Requests per HDD random row: ~3-7 s of disk time, enough for a stable mean (~±5 %). */
    static final int HDD_RANDOM_REQUESTS = 500;
    /** Requests per SSD random row: enough for thousands of requests at every queue depth. */
    static final int SSD_RANDOM_REQUESTS = 2000;
    /** Requests per sequential row: 25 MiB of transfer, over 10 HDD tracks even in the outer zone. */
    static final int SEQUENTIAL_REQUESTS = 200;
    /** Region of a zone row: 1 GiB at the very start or end of the disk lies inside one zone. */
    static final long ZONE_REGION_BYTES = 1L << 30;
    /**
     * Requests per random object-store row: thousands of round trips, so that the latency tail shows in the mean
     * and one slow request at the end does not decide the row.
     */
    static final int STORE_REQUESTS = 4000;
    /** Requests of the whole-chunk row: 1.6 GB of PUTs (each write copies its 4 MiB: this bounds the wall time). */
    static final int STORE_CHUNK_REQUESTS = 400;
    /** Depth of the deep object-store rows: the connection pool's size (its default), every request its own. */
    static final int STORE_QUEUE_DEPTH = 64;
    /** Region of the whole-chunk row: 256 MiB (64 chunks), so each chunk is rewritten only after its PUT ended. */
    static final long STORE_SEQUENTIAL_REGION_BYTES = 256L << 20;

    /** One measured row: what ran and what it achieved in virtual time. */
    public record Row(String device, String pattern, int queueDepth, double iops, double mbPerSecond) {
        /** One JSON object with every field, written by hand (no library on the data path). */
        public String toJson() {
            return String.format(Locale.ROOT,
                    "{\"device\":\"%s\",\"pattern\":\"%s\",\"queueDepth\":%d,\"iops\":%.1f,\"mbPerSecond\":%.2f}",
                    device, pattern, queueDepth, iops, mbPerSecond);
        }
    }

    private DeviceCharacterization() {
    }

    /** Runs every row for both models from {@code seed}. */
    public static List<Row> run(long seed) {
        Prng seeds = new Prng(seed);
        List<Row> rows = new ArrayList<>();
        HddConfig hdd = HddConfig.defaults().withWriteCache(false);
        SsdConfig ssd = SsdConfig.defaults();
        measureDevice("hdd", loop -> new HddModel(loop, hdd), hdd.sizeBytes(), HDD_RANDOM_REQUESTS, seeds, rows);
        long zoneRegion = Math.min(ZONE_REGION_BYTES, hdd.sizeBytes());
        rows.add(measure("hdd", loop -> new HddModel(loop, hdd), "seq-read-outer-zone",
                sequential(false, 0, zoneRegion), seeds.split()));
        rows.add(measure("hdd", loop -> new HddModel(loop, hdd), "seq-read-inner-zone",
                sequential(false, hdd.sizeBytes() - zoneRegion, zoneRegion), seeds.split()));
        measureDevice("ssd", loop -> new SsdModel(loop, ssd), ssd.sizeBytes(), SSD_RANDOM_REQUESTS, seeds, rows);
        measureStore(seeds, rows);
        return rows;
    }

    private static void measureDevice(String name, Function<EventLoop, BlockDevice> factory, long sizeBytes,
            int randomRequests, Prng seeds, List<Row> rows) {
        for (boolean write : new boolean[] {false, true}) {
            for (int queueDepth : QUEUE_DEPTHS) {
                var spec = new ClosedLoopWorkload.Spec(write, true, queueDepth, RANDOM_REQUEST_BYTES, randomRequests,
                        0, sizeBytes);
                rows.add(measure(name, factory, write ? "rand-write-4k" : "rand-read-4k", spec, seeds.split()));
            }
        }
        rows.add(measure(name, factory, "seq-read-128k", sequential(false, 0, sizeBytes), seeds.split()));
        rows.add(measure(name, factory, "seq-write-128k", sequential(true, 0, sizeBytes), seeds.split()));
    }

    private static void measureStore(Prng seeds, List<Row> rows) {
        ObjectStoreConfig store = ObjectStoreConfig.defaults();
        Prng latency = seeds.split();
        Function<EventLoop, BlockDevice> factory = loop -> new ObjectStoreModel(loop, store, latency.split());
        for (int queueDepth : new int[] {1, STORE_QUEUE_DEPTH}) {
            var spec = new ClosedLoopWorkload.Spec(false, true, queueDepth, RANDOM_REQUEST_BYTES, STORE_REQUESTS, 0,
                    store.sizeBytes());
            rows.add(measure("object", factory, "rand-read-4k", spec, seeds.split()));
        }
        rows.add(measure("object", factory, "rand-write-4k-fua", new ClosedLoopWorkload.Spec(true, true,
                STORE_QUEUE_DEPTH, RANDOM_REQUEST_BYTES, STORE_REQUESTS, 0, store.sizeBytes(), true), seeds.split()));
        rows.add(measure("object", factory, "seq-write-chunk-fua", new ClosedLoopWorkload.Spec(true, false,
                STORE_QUEUE_DEPTH, store.chunkBytes(), STORE_CHUNK_REQUESTS, 0, STORE_SEQUENTIAL_REGION_BYTES, true),
                seeds.split()));
    }

    private static ClosedLoopWorkload.Spec sequential(boolean write, long offsetBytes, long regionBytes) {
        return new ClosedLoopWorkload.Spec(write, false, SEQUENTIAL_QUEUE_DEPTH, SEQUENTIAL_REQUEST_BYTES,
                SEQUENTIAL_REQUESTS, offsetBytes, regionBytes);
    }

    private static Row measure(String device, Function<EventLoop, BlockDevice> factory, String pattern,
            ClosedLoopWorkload.Spec spec, Prng prng) {
        SimLoop loop = new SimLoop();
        ClosedLoopWorkload.Result result = new ClosedLoopWorkload(loop, factory.apply(loop), spec, prng).run();
        if (result.errors() != 0) {
            throw new IllegalStateException(device + " " + pattern + ": " + result.errors() + " requests failed");
        }
        return new Row(device, pattern, spec.queueDepth(), result.iops(), result.mbPerSecond());
    }

    /** Formats rows as an aligned text table with a header line. */
    public static String formatTable(List<Row> rows) {
        StringBuilder out = new StringBuilder(String.format(Locale.ROOT, "%-6s %-20s %5s %12s %10s%n", "device",
                "pattern", "qd", "IOPS", "MB/s"));
        for (Row row : rows) {
            out.append(String.format(Locale.ROOT, "%-6s %-20s %5d %12.1f %10.2f%n", row.device(), row.pattern(),
                    row.queueDepth(), row.iops(), row.mbPerSecond()));
        }
        return out.toString();
    }
}
