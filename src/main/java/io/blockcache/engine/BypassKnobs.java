package io.blockcache.engine;

import io.blockcache.volume.BypassSettings;
import io.blockcache.volume.Volume;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * Registers one volume's bypass and throttle knobs as {@code volume.<volume>.<knob>}: each parses its text, builds
 * new settings (validated by {@link BypassSettings}) and hands them to the volume. Defaults and sources:
 * {@link BypassSettings#defaults()} and docs/GC.md.
 */
final class BypassKnobs {
    private static final long US = 1_000L;
    private static final long MS = 1_000_000L;

    private BypassKnobs() {
    }

    static void register(KnobRegistry knobs, String volumeName, Volume volume) {
        String p = "volume." + volumeName + ".";
        add(knobs, p + "sequential_cutoff_bytes", "sequential streams this long go around the cache; 0 = off; "
                + "default 4194304 (bcache sequential_cutoff)", volume,
                s -> String.valueOf(s.sequentialCutoffBytes()), (s, v) -> s.withSequentialCutoffBytes(parseLong(v)));
        add(knobs, p + "congested_read_threshold_us", "cache reads slower than this on average = congested; 0 = off; "
                + "default 2000 (bcache)", volume, s -> String.valueOf(s.congestedReadThresholdNs() / US),
                (s, v) -> s.withCongestedThresholdsNs(parseLong(v) * US, s.congestedWriteThresholdNs()));
        add(knobs, p + "congested_write_threshold_us", "cache writes slower than this on average = congested; "
                + "0 = off; default 20000 (bcache)", volume, s -> String.valueOf(s.congestedWriteThresholdNs() / US),
                (s, v) -> s.withCongestedThresholdsNs(s.congestedReadThresholdNs(), parseLong(v) * US));
        add(knobs, p + "cutoff_writeback_percent", "cache every write-back write up to this % of buckets dirty; "
                + "default 40 (bcache CUTOFF_WRITEBACK)", volume, s -> String.valueOf(s.cutoffWritebackPercent()),
                (s, v) -> s.withCutoffsPercent((int) parseLong(v), s.cutoffWritebackSyncPercent()));
        add(knobs, p + "cutoff_writeback_sync_percent", "cache only FUA writes up to this %, none above; "
                + "default 70 (bcache CUTOFF_WRITEBACK_SYNC)", volume,
                s -> String.valueOf(s.cutoffWritebackSyncPercent()),
                (s, v) -> s.withCutoffsPercent(s.cutoffWritebackPercent(), (int) parseLong(v)));
        add(knobs, p + "throttle_start_percent", "pace new dirty writes above this % of the cache in dirty data; "
                + "100 = off; default 30", volume, s -> String.valueOf(s.throttleStartPercent()),
                (s, v) -> s.withThrottle((int) parseLong(v), s.throttleDelayNsMax()));
        add(knobs, p + "throttle_delay_max_ms", "longest the throttle holds one write, 0..1000; default 100", volume,
                s -> String.valueOf(s.throttleDelayNsMax() / MS),
                (s, v) -> s.withThrottle(s.throttleStartPercent(), parseLong(v) * MS));
    }

    private static void add(KnobRegistry knobs, String name, String description, Volume volume,
                            Function<BypassSettings, String> getter,
                            BiFunction<BypassSettings, String, BypassSettings> setter) {
        knobs.register(Knob.of(name, description, () -> getter.apply(volume.bypassSettings()),
                value -> volume.setBypassSettings(setter.apply(volume.bypassSettings(), value.trim()))));
    }

    private static long parseLong(String value) {
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("expected an integer, got \"" + value + "\"");
        }
    }
}
