package io.blockcache.engine;

import static io.blockcache.engine.KnobDraw.of;
import static io.blockcache.engine.KnobDraw.skip;
import static io.blockcache.engine.KnobType.DURATION;
import static io.blockcache.engine.KnobType.INTEGER;
import static io.blockcache.engine.KnobType.PERCENT;
import static io.blockcache.engine.KnobType.RATE;
import static io.blockcache.engine.KnobType.SIZE;

import io.blockcache.gc.GcConfig;
import io.blockcache.volume.AdmissionSettings;
import io.blockcache.volume.BypassSettings;
import io.blockcache.volume.CacheMode;
import io.blockcache.writeback.WritebackOrder;
import io.blockcache.writeback.WritebackOrdering;
import io.blockcache.writeback.WritebackPolicy;
import io.blockcache.writeback.WritebackSettings;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;

/**
 * Every live knob, declared once (FoundationDB's {@code ServerKnobs.cpp}: name, range, doc and how the simulator
 * randomises it on one entry). The registry ({@link #bind}), {@code get}/{@code set}, the documentation tables
 * ({@link KnobDocs}) and the fuzz's draws ({@code fuzz.FuzzSetup#withTableKnobs}) all come from this list; adding
 * a knob is one entry here plus the settings field it sets. Defaults are the settings records' own
 * ({@code WritebackSettings.defaults()}, {@code BypassSettings.defaults()}, {@code GcConfig.defaults()}), where
 * each has its reason.
 *
 * <p>The fuzz's choices for knobs that the settings relate to each other (busy &le; idle, cutoff &le; sync cutoff,
 * rate_max &ge; rate_min, free_low &le; free_target) are picked so that any combination, applied in this order on
 * top of the defaults, is valid: the fuzz sets them one at a time, as an operator does.
 */
public final class KnobTable {
    private static final long SECTOR = 512;
    private static final String W = "writeback." + KnobSpec.VOLUME + ".";
    private static final String V = "volume." + KnobSpec.VOLUME + ".";

    private static final KnobBinding.Component<WritebackSettings> WRITEBACK = new KnobBinding.Component<>(
            WritebackSettings::defaults, t -> t.writeback().settings(), (t, s) -> t.writeback().setSettings(s));
    private static final KnobBinding.Component<BypassSettings> BYPASS = new KnobBinding.Component<>(
            BypassSettings::defaults, t -> t.volume().bypassSettings(), (t, s) -> t.volume().setBypassSettings(s));
    private static final KnobBinding.Component<AdmissionSettings> ADMISSION = new KnobBinding.Component<>(
            AdmissionSettings::defaults, t -> t.volume().admissionSettings(),
            (t, s) -> t.volume().setAdmissionSettings(s));
    private static final KnobBinding.Component<CacheMode> MODE = new KnobBinding.Component<>(
            () -> CacheSetOptions.defaults().mode(), t -> t.volume().mode(), (t, s) -> t.volume().setMode(s));
    private static final KnobBinding.Component<GcConfig> GC = new KnobBinding.Component<>(
            GcConfig::defaults, t -> t.gc().config(), (t, s) -> t.gc().setConfig(s));

    private static final List<KnobSpec> ALL = List.of(
            choice(KnobGroup.VOLUME, MODE, V + "mode", CacheMode.class, "cache mode of new requests (dirty data drains"
                    + " in every mode; the initial mode is serve's --mode)", of("writeback", "writethrough",
                    "writearound", "none"), m -> m, (m, v) -> v),

            number(KnobGroup.BYPASS, BYPASS, V + "sequential_cutoff_bytes", SIZE, "bytes", 0, 1L << 40,
                    "sequential streams this long go around the cache; 0 = off (bcache sequential_cutoff)",
                    of("0", "128K", "512K", "4M"), BypassSettings::sequentialCutoffBytes,
                    BypassSettings::withSequentialCutoffBytes).step(SECTOR),
            number(KnobGroup.BYPASS, BYPASS, V + "congested_read_threshold_us", DURATION, "us", 0, 10_000_000,
                    "cache reads slower than this on average = congested; 0 = off (bcache)",
                    of("0", "0", "200", "2ms"), s -> s.congestedReadThresholdNs() / Quantities.US,
                    (s, v) -> s.withCongestedThresholdsNs(v * Quantities.US, s.congestedWriteThresholdNs())),
            number(KnobGroup.BYPASS, BYPASS, V + "congested_write_threshold_us", DURATION, "us", 0, 10_000_000,
                    "cache writes slower than this on average = congested; 0 = off (bcache)",
                    of("0", "0", "500", "20ms"), s -> s.congestedWriteThresholdNs() / Quantities.US,
                    (s, v) -> s.withCongestedThresholdsNs(s.congestedReadThresholdNs(), v * Quantities.US)),
            // Drawn at most the smallest sync choice, so that any pair is valid (cutoff <= sync cutoff).
            number(KnobGroup.BYPASS, BYPASS, V + "cutoff_writeback_percent", PERCENT, "%", 0, 100,
                    "cache every write-back write up to this % of the cache in dirty data (bcache CUTOFF_WRITEBACK,"
                    + " there in buckets); the throttle paces writers to writeback's rate here; at most the sync"
                    + " cutoff", of("10", "25", "40%"), BypassSettings::cutoffWritebackPercent,
                    (s, v) -> s.withCutoffsPercent((int) v, s.cutoffWritebackSyncPercent())),
            number(KnobGroup.BYPASS, BYPASS, V + "cutoff_writeback_sync_percent", PERCENT, "%", 0, 100,
                    "cache only FUA writes up to this % of the cache in dirty data, none above (bcache"
                    + " CUTOFF_WRITEBACK_SYNC)",
                    of("40", "70", "100"), BypassSettings::cutoffWritebackSyncPercent,
                    (s, v) -> s.withCutoffsPercent(s.cutoffWritebackPercent(), (int) v)),
            number(KnobGroup.BYPASS, BYPASS, V + "throttle_start_percent", PERCENT, "%", 0, 100,
                    "pace new dirty writes above this % of the cache in dirty data, 8x writeback's rate here down to 1x"
                    + " at the write-back cutoff; 100 = off (ours: 3 x writeback percent)", of("10", "30", "100"),
                    BypassSettings::throttleStartPercent,
                    (s, v) -> s.withThrottle((int) v, s.throttleDelayNsMax())),
            number(KnobGroup.BYPASS, BYPASS, V + "throttle_delay_max_ms", DURATION, "ms", 0, 1000,
                    "longest the throttle holds one write (ours)", of("0", "10", "100ms"),
                    s -> s.throttleDelayNsMax() / Quantities.MS,
                    (s, v) -> s.withThrottle(s.throttleStartPercent(), v * Quantities.MS)),

            number(KnobGroup.CACHING, ADMISSION, V + "admission_count_min", INTEGER, "reads", 0,
                    AdmissionSettings.COUNT_MIN_MAX, "a read miss fills only if its block was read this often lately"
                    + " and more often than the oldest recent fill; 0 or 1 = every miss fills (TinyLFU)",
                    of("0", "2", "2", "3"), AdmissionSettings::countMin, (s, v) -> s.withCountMin((int) v)),
            number(KnobGroup.CACHING, ADMISSION, V + "admission_free_percent", PERCENT, "%", 0, 100,
                    "every read miss fills while more than this % of the buckets is free (GC keeps up to 15 %"
                    + " free under dirty writes, as little as 2 buckets without them)",
                    of("0", "20", "100"), AdmissionSettings::freePercent, (s, v) -> s.withFreePercent((int) v)),
            number(KnobGroup.CACHING, ADMISSION, V + "promote_age_percent", PERCENT, "%", 0, 100,
                    "a clean read hit in a bucket older than this % of the buckets (in buckets opened since) is"
                    + " rewritten into the newest; 0 = never (CacheLib Navy's reinsertion)", of("0", "50", "90"),
                    AdmissionSettings::promoteAgePercent, (s, v) -> s.withPromoteAgePercent((int) v)),

            number(KnobGroup.GC, GC, "gc.free_low_percent", PERCENT, "%", 1, 50,
                    "evict clean buckets when free buckets fall below this % times the dirty writes' share of recent"
                    + " bucket allocations, at least 2 buckets (at most GcConfig's free target, 15 %)",
                    of("5", "10"), GcConfig::freeLowPercent,
                    (c, v) -> c.withFreePercents((int) v, c.freeTargetPercent())),

            flag("running", "writeback on or off; a drain runs even while paused, as bcache's detach"
                    + " does (bcache writeback_running)", of("true", "true", "true", "false"),
                    WritebackSettings::running, (b, v) -> b.running(v)),
            choice(KnobGroup.WRITEBACK, WRITEBACK, W + "policy", WritebackPolicy.class, "modern = this design;"
                    + " classic = bcache before the 2025 patch (baseline)", of("modern", "modern", "classic"),
                    WritebackSettings::policy, (s, v) -> s.toBuilder().policy(v).build()),
            passOrder("pass_order"),
            passOrder("order").deprecatedFor(W + "pass_order"),
            // journaled is drawn with a backing log, by FuzzSetup.withJournaled: without one the knob refuses it.
            choice(KnobGroup.WRITEBACK, WRITEBACK, W + "ordering", WritebackOrdering.class, "epochs: write back FLUSH"
                    + " by FLUSH, so the backing device alone is always crash-consistent; journaled: the same"
                    + " through the backing log (needs format --backing-log); docs/WRITEBACK.md",
                    of("none", "epochs"), WritebackSettings::ordering, (s, v) -> s.toBuilder().ordering(v).build()),
            writeback("percent", PERCENT, "%", 0, 100, "dirty target, % of the volume's cache share (bcache"
                    + " writeback_percent)", of("0", "10", "40"), WritebackSettings::percent,
                    (b, v) -> b.percent((int) v)),
            // rate_max: 0 (none) or at least the largest rate_min choice, so that any pair is valid.
            writeback("rate_max_bytes_per_second", RATE, "bytes/s", 0, 1_000_000_000L * SECTOR,
                    "writeback rate ceiling, idle included; 0 = none (users asked bcache for one; a pass under it"
                    + " carries at most 0.5 s of it)", of("0", "0", "0", "4M/s", "64M/s"),
                    s -> s.rateMaxSectorsPerSecond() * SECTOR, (b, v) -> b.rateMaxSectorsPerSecond(v / SECTOR))
                    .step(SECTOR),
            writeback("rate_max_sectors_per_second", INTEGER, "sectors/s", 0, 1_000_000_000L,
                    "writeback rate ceiling in 512-byte sectors/s", skip("alias"),
                    WritebackSettings::rateMaxSectorsPerSecond, (b, v) -> b.rateMaxSectorsPerSecond(v))
                    .deprecatedFor(W + "rate_max_bytes_per_second"),
            writeback("rate_min_bytes_per_second", RATE, "bytes/s", SECTOR, 1_000_000_000L * SECTOR,
                    "floor of the PI controller's rate (bcache writeback_rate_minimum: 8 sectors/s)",
                    of("4K/s", "4K/s", "512K"), s -> s.rateMinSectorsPerSecond() * SECTOR,
                    (b, v) -> b.rateMinSectorsPerSecond(v / SECTOR)).step(SECTOR),
            writeback("rate_min_sectors_per_second", INTEGER, "sectors/s", 1, 1_000_000_000L,
                    "PI rate floor in 512-byte sectors/s", skip("alias"),
                    WritebackSettings::rateMinSectorsPerSecond, (b, v) -> b.rateMinSectorsPerSecond(v))
                    .deprecatedFor(W + "rate_min_bytes_per_second"),
            writeback("p_term_inverse", INTEGER, "", 1, Integer.MAX_VALUE, "P = error / this (bcache"
                    + " writeback_rate_p_term_inverse)", of("10", "40", "1000"), WritebackSettings::proportionalInverse,
                    (b, v) -> b.proportionalInverse((int) v)),
            writeback("i_term_inverse", INTEGER, "", 1, Integer.MAX_VALUE, "I = integral / this (bcache"
                    + " writeback_rate_i_term_inverse)", of("100", "10000", "1000000"),
                    WritebackSettings::integralInverse, (b, v) -> b.integralInverse((int) v)),
            writeback("rate_update_ms", DURATION, "ms", 100, 60_000, "PI update period (bcache"
                    + " writeback_rate_update_seconds)", of("100", "1s", "5s"), s -> s.rateUpdateNs() / Quantities.MS,
                    (b, v) -> b.rateUpdateNs(v * Quantities.MS)),
            // Busy choices are at most the smallest idle choice (and the idle defaults): any pair is valid.
            writeback("keys_per_pass_busy", INTEGER, "keys", 1, 500, "keys per pass while the front end is busy, at"
                    + " most keys_per_pass_idle (bcache WRITEBACKS_IN_PASS)", of("1", "5", "20"),
                    WritebackSettings::keysPerPassBusy, (b, v) -> b.keysPerPassBusy((int) v)),
            writeback("sectors_per_pass_busy", INTEGER, "sectors", 1, Integer.MAX_VALUE, "sectors per pass while"
                    + " busy, at most sectors_per_pass_idle (bcache WRITESIZE_IN_PASS)", of("8", "256", "5000"),
                    WritebackSettings::sectorsPerPassBusy, (b, v) -> b.sectorsPerPassBusy((int) v)),
            writeback("keys_per_pass_idle", INTEGER, "keys", 1, 500, "keys per pass while idle or draining, at most"
                    + " the 500-key buffer (the 2025 patch's MAX_WRITEBACKS_IN_PASS)", of("20", "80", "500"),
                    WritebackSettings::keysPerPassIdle, (b, v) -> b.keysPerPassIdle((int) v)),
            writeback("sectors_per_pass_idle", INTEGER, "sectors", 1, Integer.MAX_VALUE, "sectors per pass while"
                    + " idle or draining (the 2025 patch's MAX_WRITESIZE_IN_PASS)", of("5000", "80000"),
                    WritebackSettings::sectorsPerPassIdle, (b, v) -> b.sectorsPerPassIdle((int) v)),
            writeback("io_in_flight_max", INTEGER, "keys", 1, 4096, "keys between cache read and backing write"
                    + " completion (bcache dc->in_flight)", of("1", "8", "64"), WritebackSettings::ioInFlightMax,
                    (b, v) -> b.ioInFlightMax((int) v)),
            writeback("chunks_in_flight_max", INTEGER, "chunks", 1, 1024, "object stores only: chunks between cache"
                    + " read and backing write completion, their buffers bounded to 128 MiB besides (32 whole 4 MiB"
                    + " chunks fill a 1.25 GB/s link; partial chunks take a GET and a PUT, so 4 x as many)",
                    of("1", "8", "128"), WritebackSettings::chunksInFlightMax, (b, v) -> b.chunksInFlightMax((int) v)),
            writeback("backing_io_sectors_max", INTEGER, "sectors", 8, 65_536, "largest merged backing write (1 MiB:"
                    + " a disk streams at that size; larger writes only delay reads behind them)",
                    of("8", "256", "2048"), WritebackSettings::backingIoSectorsMax,
                    (b, v) -> b.backingIoSectorsMax((int) v)),
            writeback("dirty_expire_ms", DURATION, "ms", 1000, 86_400_000, "age after which dirty data is written"
                    + " back even under load (early-flush RFC, 2001; bdflush age_buffer)", of("1s", "30000"),
                    s -> s.dirtyExpireNs() / Quantities.MS, (b, v) -> b.dirtyExpireNs(v * Quantities.MS)),
            writeback("rescan_delay_ms", DURATION, "ms", 0, 60_000, "while busy, rest after a scan of the whole index"
                    + " before the next; 0 = none (bcache writeback_delay: 30 s)", of("0", "1s", "30s"),
                    s -> s.rescanDelayNs() / Quantities.MS, (b, v) -> b.rescanDelayNs(v * Quantities.MS)),
            writeback("classic_idle_ms", DURATION, "ms", 100, 86_400_000, "classic: quiet time before it runs at"
                    + " full speed, at least the 100 ms sample (bcache: ~6 x update period)", of("100ms", "1s", "30s"),
                    s -> s.classicIdleNs() / Quantities.MS, (b, v) -> b.classicIdleNs(v * Quantities.MS)),
            flag("fragment_boost", "bcache's fragmentation boost of P (bcache writeback_consider_fragment)",
                    of("true", "false"), WritebackSettings::fragmentBoost, (b, v) -> b.fragmentBoost(v)));

    private KnobTable() {
    }

    /** Every knob, current and deprecated, in declaration order (the order the docs list and the fuzz sets them). */
    public static List<KnobSpec> all() {
        return ALL;
    }

    /**
     * Registers the knobs of one volume ({@code volumeName} not null: the per-volume knobs) or of the cache set
     * ({@code volumeName} null), live on {@code target}.
     */
    static void bind(KnobRegistry knobs, String volumeName, KnobTarget target) {
        for (KnobSpec spec : ALL) {
            if (spec.perVolume() == (volumeName != null)) {
                knobs.register(new TableKnob(spec, volumeName, target));
            }
        }
    }

    /** A setter on the writeback settings' builder, for {@link #writeback}. */
    private interface BuilderSet {
        WritebackSettings.Builder set(WritebackSettings.Builder builder, long value);
    }

    private static KnobSpec writeback(String knob, KnobType type, String unit, long min, long max, String doc,
                                      KnobDraw draw, ToLongFunction<WritebackSettings> get, BuilderSet set) {
        return number(KnobGroup.WRITEBACK, WRITEBACK, W + knob, type, unit, min, max, doc, draw, get,
                (s, v) -> set.set(s.toBuilder(), v).build());
    }

    private static KnobSpec passOrder(String knob) {
        return choice(KnobGroup.WRITEBACK, WRITEBACK, W + knob, WritebackOrder.class, "key order of modern passes:"
                + " lba, fifo or auto by key size (the 2017 reorder debate asked for the switch)",
                of("lba", "fifo", "auto"), WritebackSettings::order, (s, v) -> s.toBuilder().order(v).build());
    }

    private static KnobSpec flag(String knob, String doc, KnobDraw draw, Predicate<WritebackSettings> get,
                                 BiFunction<WritebackSettings.Builder, Boolean, WritebackSettings.Builder> set) {
        return new KnobSpec(W + knob, KnobType.BOOLEAN, "", 0, 1, 1, List.of("false", "true"), doc, draw,
                KnobGroup.WRITEBACK, new KnobBinding<>(WRITEBACK, s -> get.test(s) ? 1 : 0,
                (s, v) -> set.apply(s.toBuilder(), v == 1).build()), null);
    }

    private static <S> KnobSpec number(KnobGroup group, KnobBinding.Component<S> component, String pattern,
                                       KnobType type, String unit, long min, long max, String doc, KnobDraw draw,
                                       ToLongFunction<S> get, KnobBinding.With<S> with) {
        return new KnobSpec(pattern, type, unit, min, max, 1, List.of(), doc, draw, group,
                new KnobBinding<>(component, get, with), null);
    }

    private static <S, E extends Enum<E>> KnobSpec choice(KnobGroup group, KnobBinding.Component<S> component,
                                                          String pattern, Class<E> type, String doc, KnobDraw draw,
                                                          Function<S, E> get, BiFunction<S, E, S> with) {
        E[] constants = type.getEnumConstants();
        List<String> names = Arrays.stream(constants).map(e -> e.name().toLowerCase(Locale.ROOT)).toList();
        return new KnobSpec(pattern, KnobType.ENUM, "", 0, constants.length - 1, 1, names, doc, draw, group,
                new KnobBinding<>(component, s -> get.apply(s).ordinal(), (s, v) -> with.apply(s, constants[(int) v])),
                null);
    }
}
