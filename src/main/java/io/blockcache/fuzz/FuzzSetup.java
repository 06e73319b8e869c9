package io.blockcache.fuzz;

import io.blockcache.engine.CacheSetOptions;
import io.blockcache.engine.KnobDraw;
import io.blockcache.engine.KnobSpec;
import io.blockcache.engine.KnobTable;
import io.blockcache.loop.Prng;
import io.blockcache.volume.CacheMode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What one fuzz seed runs against, drawn from the seed the way FoundationDB randomises its knobs under
 * simulation: a tiny cache (so eviction, moving GC, checkpoints and journal wraps happen in every run), 1 to 3
 * volumes with their initial modes, the journal's group-commit delay, and live knobs set by name after every
 * open: every knob of {@code engine.KnobTable} ({@link #withTableKnobs}), or, for the generators before it, bypass
 * cutoffs, congestion thresholds, writeback policy and order and GC thresholds drawn by hand ({@link #draw}).
 *
 * @param options the cache set's format and open options
 * @param cacheBuckets buckets of the cache device (journal included)
 * @param volumeCount volumes, 1..3
 * @param rangeBytes each volume's workload range from byte 0 (also its size)
 * @param knobs live knobs applied after every open, by name, in this order
 * @param hddBacking backing devices are disk models (else SSD models)
 * @param segments workload segments, each ending in a crash or a clean restart
 * @param opsPerSegment requests per volume per segment
 * @param streamChance chance per request of starting a sequential stream
 * @param controlChance chance per control slot of a live action (mode switch, drain, GC, checkpoint, knob)
 * @param faults device faults injected while the workload runs
 * @param mapInFile per volume, whether its damage map lives in a map file of its own ({@code damage-map=file}, the
 *     default of {@code serve}) rather than on the backing device; drawn from a stream of its own ({@link
 *     #withMapPlacement}), so that no other draw of a seed changes
 * @param objectStore per volume, whether its backing device is an object store model (64 KiB chunk objects, the S3
 *     backing's shape: writeback then takes the chunk path) instead of a disk or SSD; drawn from a stream of its own
 *     ({@link #withObjectStores})
 * @param logBytes per volume, the size of its backing device's log (0: none); a volume with one has {@code
 *     ordering=journaled} (docs/WRITEBACK.md); drawn from a stream of its own ({@link #withJournaled})
 */
public record FuzzSetup(CacheSetOptions options, int cacheBuckets, int volumeCount, long rangeBytes,
                        Map<String, String> knobs, boolean hddBacking, int segments, int opsPerSegment,
                        double streamChance, double controlChance, FuzzFaults faults, List<Boolean> mapInFile,
                        List<Boolean> objectStore, List<Long> logBytes) {
    /** The smallest cache the format accepts. */
    private static final int CACHE_BUCKETS_MIN = 16;
    private static final int[] BUCKET_BYTES = {128 << 10, 256 << 10};
    private static final long[] JOURNAL_DELAYS_NS = {0, TimeUnit.MILLISECONDS.toNanos(1),
        TimeUnit.MILLISECONDS.toNanos(20), TimeUnit.MILLISECONDS.toNanos(100)};

    /** Validates the relations the scenario relies on. */
    public FuzzSetup {
        knobs = new LinkedHashMap<>(knobs);
        mapInFile = List.copyOf(mapInFile);
        logBytes = List.copyOf(logBytes);
        if (volumeCount < 1 || volumeCount > 3 || segments < 1 || opsPerSegment < 1 || rangeBytes % 4096 != 0
                || mapInFile.size() != volumeCount || logBytes.size() != volumeCount) {
            throw new IllegalArgumentException("bad fuzz setup: " + volumeCount + " volumes, " + segments
                    + " segments, " + opsPerSegment + " ops, range " + rangeBytes);
        }
    }

    /** Draws a setup from {@code prng}. */
    public static FuzzSetup draw(Prng prng) {
        return draw(prng, true);
    }

    /**
     * Draws a setup from {@code prng}; without {@code drawOrdering} every volume keeps {@code ordering=none} and
     * nothing is drawn for it: the generator as it was before epoch ordering ({@code UNORDERED}), with which the seeds
     * of {@code FuzzRegressionTest} were found (everything else it draws is the same, in the same order).
     */
    public static FuzzSetup draw(Prng prng, boolean drawOrdering) {
        int bucketBytes = BUCKET_BYTES[prng.nextInt(BUCKET_BYTES.length)];
        int volumeCount = 1 + prng.nextInt(3);
        CacheMode firstMode = pick(prng, CacheMode.values());
        // The fuzz keeps the damage map on (opt-in in the product): its oracle (g) checks it.
        CacheSetOptions options = CacheSetOptions.defaults().withDamageMap(true).withBucketSizeBytes(bucketBytes)
                .withJournalBuckets(3 + prng.nextInt(2)).withMode(firstMode)
                .withJournalDelayNs(JOURNAL_DELAYS_NS[prng.nextInt(JOURNAL_DELAYS_NS.length)]);
        // Clean copies are covered (and so kept across a power cut) 10 journal delays apart, at least 10 ms: rounds
        // often enough that power cuts find covered copies, from 10 ms to 1 s; derived, not drawn, so every seed draws
        // what it drew before (FuzzRegressionTest).
        options = options.withCleanCoverIntervalNs(Math.max(TimeUnit.MILLISECONDS.toNanos(10),
                10 * options.journalDelayNs()));
        long rangeBytes = (1L + prng.nextInt(3)) << 20;
        // Cache data well below the volumes' working set, so that eviction and moving GC have work.
        long dataBytes = Math.max(12L * bucketBytes, rangeBytes * volumeCount / (2 + prng.nextInt(4)));
        // The format's floor: 16 buckets, the journal at most a quarter of them.
        int cacheBuckets = Math.max(CACHE_BUCKETS_MIN, (int) (dataBytes / bucketBytes) + options.journalBuckets());
        Map<String, String> knobs = new LinkedHashMap<>();
        List<String> names = new ArrayList<>();
        for (int v = 0; v < volumeCount; v++) {
            names.add(volumeName(v));
        }
        for (String name : names) {
            knobs.put("volume." + name + ".mode", v(pick(prng, CacheMode.values())));
            knobs.put("volume." + name + ".sequential_cutoff_bytes", pick(prng, "0", "131072", "524288", "4194304"));
            knobs.put("volume." + name + ".congested_read_threshold_us", pick(prng, "0", "0", "200", "2000"));
            knobs.put("volume." + name + ".congested_write_threshold_us", pick(prng, "0", "0", "500", "20000"));
            int cutoff = pickInt(prng, 10, 40, 70, 100, 100);
            // The sync cutoff first: the knobs are validated one at a time against each other.
            knobs.put("volume." + name + ".cutoff_writeback_sync_percent",
                    String.valueOf(Math.max(cutoff, pickInt(prng, 40, 70, 100))));
            knobs.put("volume." + name + ".cutoff_writeback_percent", String.valueOf(cutoff));
            knobs.put("volume." + name + ".throttle_start_percent", pick(prng, "30", "100"));
            knobs.put("volume." + name + ".throttle_delay_max_ms", pick(prng, "0", "10", "100"));
            knobs.put("writeback." + name + ".running", pick(prng, "true", "true", "true", "false"));
            knobs.put("writeback." + name + ".policy", pick(prng, "modern", "modern", "classic"));
            // Named "order" until 2026-12-07 (now its deprecated alias): the same setting, the same draw.
            knobs.put("writeback." + name + ".pass_order", pick(prng, "lba", "fifo", "auto"));
            knobs.put("writeback." + name + ".percent", pick(prng, "0", "10", "40"));
            knobs.put("writeback." + name + ".io_in_flight_max", pick(prng, "1", "8", "64"));
            knobs.put("writeback." + name + ".backing_io_sectors_max", pick(prng, "8", "256", "2048"));
            knobs.put("writeback." + name + ".dirty_expire_ms", pick(prng, "1000", "30000"));
        }
        knobs.put("gc.free_low_percent", pick(prng, "5", "10"));
        boolean hddBacking = prng.chance(0.7);
        int segments = 2 + prng.nextInt(3);
        int opsPerSegment = 60 + prng.nextInt(240);
        double streamChance = prng.chance(0.5) ? 0.05 : 0;
        double controlChance = 0.02 + prng.nextDouble() * 0.1;
        FuzzFaults faults = FuzzFaults.draw(prng);
        // Drawn after everything else, so every earlier draw of an existing seed keeps its value.
        for (String name : names) {
            knobs.put("writeback." + name + ".ordering", drawOrdering ? pick(prng, "none", "epochs") : "none");
        }
        // Later still (2026-12-03): the scan's rest, off, bcache-like or the default.
        for (String name : names) {
            knobs.put("writeback." + name + ".rescan_delay_ms", pick(prng, "0", "1000", "30000"));
        }
        return new FuzzSetup(options, cacheBuckets, volumeCount, rangeBytes, knobs, hddBacking, segments,
                opsPerSegment, streamChance, controlChance, faults, java.util.Collections.nCopies(volumeCount, false),
                java.util.Collections.nCopies(volumeCount, false), java.util.Collections.nCopies(volumeCount, 0L));
    }

    /**
     * This setup with each volume's damage map placed in a map file with even chance, drawn from {@code placement}
     * (a stream of its own: the generator before it kept every map on the backing device, and every other
     * draw of a seed stays as it was).
     */
    public FuzzSetup withMapPlacement(Prng placement) {
        return new FuzzSetup(options, cacheBuckets, volumeCount, rangeBytes, knobs, hddBacking, segments,
                opsPerSegment, streamChance, controlChance, faults, perVolume(placement, 0.5), objectStore, logBytes);
    }

    /**
     * This setup with each volume's backing device an object store with chance 1/4, drawn from {@code placement} (a
     * stream of its own: the generator before 2026-12-02 had none, and every other draw of a seed stays as it was).
     */
    public FuzzSetup withObjectStores(Prng placement) {
        return new FuzzSetup(options, cacheBuckets, volumeCount, rangeBytes, knobs, hddBacking, segments,
                opsPerSegment, streamChance, controlChance, faults, mapInFile, perVolume(placement, 0.25), logBytes);
    }

    /**
     * This setup with each volume given {@code ordering=journaled} and a backing log of 1, 2 or 4 MiB with chance
     * 1/3, drawn from {@code drawn} (a stream of its own: the generator before journaled write-back had none, and
     * every other draw of a seed stays as it was); object store volumes only {@code withObjectStores} ({@code
     * JOURNALED_OBJECT_STORES} on: the draws are the same, so a seed whose object stores drew none replays as before).
     * The logs are small next to the volumes (1 to 3 MiB), so groups that outgrow them, and epochs written in order
     * without a log, are common.
     */
    public FuzzSetup withJournaled(Prng drawn, boolean withObjectStores) {
        Map<String, String> newKnobs = new LinkedHashMap<>(knobs);
        List<Long> logs = new ArrayList<>();
        for (int v = 0; v < volumeCount; v++) {
            boolean journaled = drawn.chance(1.0 / 3);
            long log = (1L << drawn.nextInt(3)) << 20;
            if (journaled && (withObjectStores || !objectStore.get(v))) {
                logs.add(log);
                newKnobs.put("writeback." + volumeName(v) + ".ordering", "journaled");
            } else {
                logs.add(0L);
            }
        }
        return new FuzzSetup(options, cacheBuckets, volumeCount, rangeBytes, newKnobs, hddBacking, segments,
                opsPerSegment, streamChance, controlChance, faults, mapInFile, objectStore, logs);
    }

    /**
     * This setup with every knob of the knob table drawn from its declaration ({@link KnobDraw}), drawn from
     * {@code drawn} (a stream of its own, 2026-12-07: the generator before it drew 17 knobs per volume by hand, and
     * every other draw of a seed stays as it was): per volume in volume order, each in the table's order, then the
     * cache set's. A knob the table does not draw keeps its default; {@link #withJournaled} then sets {@code
     * ordering=journaled} on the volumes that get a backing log (the table draws none or epochs).
     */
    public FuzzSetup withTableKnobs(Prng drawn) {
        Map<String, String> newKnobs = new LinkedHashMap<>();
        for (int v = 0; v < volumeCount; v++) {
            drawKnobs(drawn, true, volumeName(v), newKnobs);
        }
        drawKnobs(drawn, false, null, newKnobs);
        return new FuzzSetup(options, cacheBuckets, volumeCount, rangeBytes, newKnobs, hddBacking, segments,
                opsPerSegment, streamChance, controlChance, faults, mapInFile, objectStore, logBytes);
    }

    /** This setup with {@code newFaults} instead of its faults. */
    public FuzzSetup withFaults(FuzzFaults newFaults) {
        return new FuzzSetup(options, cacheBuckets, volumeCount, rangeBytes, knobs, hddBacking, segments,
                opsPerSegment, streamChance, controlChance, newFaults, mapInFile, objectStore, logBytes);
    }

    private static void drawKnobs(Prng drawn, boolean perVolume, String volume, Map<String, String> into) {
        for (KnobSpec spec : KnobTable.all()) {
            if (spec.perVolume() == perVolume && spec.draw().drawn()) {
                into.put(spec.name(volume), spec.draw().draw(drawn));
            }
        }
    }

    /** One draw per volume, in volume order, each true with {@code chance}. */
    private List<Boolean> perVolume(Prng prng, double chance) {
        List<Boolean> drawn = new ArrayList<>();
        for (int v = 0; v < volumeCount; v++) {
            drawn.add(prng.chance(chance));
        }
        return drawn;
    }

    /** The export name of volume {@code index}. */
    public static String volumeName(int index) {
        return "vol" + index;
    }

    /** Cache device bytes: the 1 MiB metadata area plus the buckets. */
    public long cacheDeviceBytes() {
        return (1L << 20) + (long) cacheBuckets * options.bucketSizeBytes();
    }

    /** One line for a failure report. */
    public String describe() {
        return volumeCount + " volume(s) of " + (rangeBytes >> 20) + " MiB, cache " + cacheBuckets + " buckets of "
                + (options.bucketSizeBytes() >> 10) + " KiB (" + options.journalBuckets() + " journal), journal delay "
                + TimeUnit.NANOSECONDS.toMillis(options.journalDelayNs()) + " ms, " + (hddBacking ? "HDD" : "SSD")
                + " backing" + (objectStore.contains(true) ? " (object stores: " + objectStore + ")" : "")
                + ", damage maps " + (mapInFile.contains(true) ? "in files " + mapInFile : "on the backing")
                + (logBytes.stream().anyMatch(b -> b > 0) ? ", backing logs " + logBytes : "")
                + ", " + segments + " segments x " + opsPerSegment + " ops, faults " + faults + ", knobs " + knobs;
    }

    private static String v(CacheMode mode) {
        return mode.name().toLowerCase(java.util.Locale.ROOT);
    }

    @SafeVarargs
    private static <T> T pick(Prng prng, T... choices) {
        return choices[prng.nextInt(choices.length)];
    }

    private static int pickInt(Prng prng, int... choices) {
        return choices[prng.nextInt(choices.length)];
    }
}
