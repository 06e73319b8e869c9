package io.blockcache.engine;

import io.blockcache.writeback.Writeback;
import io.blockcache.writeback.WritebackOrder;
import io.blockcache.writeback.WritebackOrdering;
import io.blockcache.writeback.WritebackPolicy;
import io.blockcache.writeback.WritebackSettings;
import java.util.Locale;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * Registers one volume's writeback knobs as {@code writeback.<volume>.<knob>}: each parses its text, builds new
 * settings (validated by {@link WritebackSettings}) and hands them to the engine. Defaults and sources:
 * docs/WRITEBACK.md.
 */
final class WritebackKnobs {
    private static final long MS = 1_000_000L;

    private WritebackKnobs() {
    }

    static void register(KnobRegistry knobs, String volume, Writeback writeback) {
        String p = "writeback." + volume + ".";
        add(knobs, p + "running", "writeback on or off (true|false); default true", writeback,
                s -> String.valueOf(s.running()), (b, v) -> b.running(parseBoolean(v)));
        add(knobs, p + "policy", "modern or classic (bcache before 2025); default modern", writeback,
                s -> s.policy().name().toLowerCase(Locale.ROOT),
                (b, v) -> b.policy(parseEnum(WritebackPolicy.class, v)));
        add(knobs, p + "order", "key order of modern passes: lba, fifo or auto; default lba", writeback,
                s -> s.order().name().toLowerCase(Locale.ROOT),
                (b, v) -> b.order(parseEnum(WritebackOrder.class, v)));
        add(knobs, p + "ordering", "none; epochs: write back FLUSH by FLUSH; journaled: the same through the backing"
                + " log, at unordered speed (docs/WRITEBACK.md); default none",
                writeback, s -> s.ordering().name().toLowerCase(Locale.ROOT),
                (b, v) -> b.ordering(parseEnum(WritebackOrdering.class, v)));
        add(knobs, p + "percent", "dirty target, % of the volume's cache share, 0..100; default 10", writeback,
                s -> String.valueOf(s.percent()), (b, v) -> b.percent((int) parseLong(v)));
        add(knobs, p + "rate_max_sectors_per_second", "writeback rate ceiling, idle included; 0 = none (default)",
                writeback, s -> String.valueOf(s.rateMaxSectorsPerSecond()),
                (b, v) -> b.rateMaxSectorsPerSecond(parseLong(v)));
        add(knobs, p + "rate_min_sectors_per_second", "PI rate floor; default 8", writeback,
                s -> String.valueOf(s.rateMinSectorsPerSecond()), (b, v) -> b.rateMinSectorsPerSecond(parseLong(v)));
        add(knobs, p + "p_term_inverse", "P = error / this; default 40", writeback,
                s -> String.valueOf(s.proportionalInverse()), (b, v) -> b.proportionalInverse((int) parseLong(v)));
        add(knobs, p + "i_term_inverse", "I = integral / this; default 10000", writeback,
                s -> String.valueOf(s.integralInverse()), (b, v) -> b.integralInverse((int) parseLong(v)));
        add(knobs, p + "rate_update_ms", "PI update period in ms, 100..60000; default 5000", writeback,
                s -> String.valueOf(s.rateUpdateNs() / MS), (b, v) -> b.rateUpdateNs(parseLong(v) * MS));
        add(knobs, p + "keys_per_pass_busy", "keys per pass while busy; default 5", writeback,
                s -> String.valueOf(s.keysPerPassBusy()), (b, v) -> b.keysPerPassBusy((int) parseLong(v)));
        add(knobs, p + "sectors_per_pass_busy", "sectors per pass while busy; default 5000", writeback,
                s -> String.valueOf(s.sectorsPerPassBusy()), (b, v) -> b.sectorsPerPassBusy((int) parseLong(v)));
        add(knobs, p + "keys_per_pass_idle", "keys per pass while idle/draining; default 80", writeback,
                s -> String.valueOf(s.keysPerPassIdle()), (b, v) -> b.keysPerPassIdle((int) parseLong(v)));
        add(knobs, p + "sectors_per_pass_idle", "sectors per pass while idle/draining; default 80000", writeback,
                s -> String.valueOf(s.sectorsPerPassIdle()), (b, v) -> b.sectorsPerPassIdle((int) parseLong(v)));
        add(knobs, p + "io_in_flight_max", "keys between cache read and backing write completion; default 64",
                writeback, s -> String.valueOf(s.ioInFlightMax()), (b, v) -> b.ioInFlightMax((int) parseLong(v)));
        add(knobs, p + "chunks_in_flight_max", "object stores: chunks between cache read and backing write completion"
                + " (their buffers also bounded to 128 MiB); default 128", writeback,
                s -> String.valueOf(s.chunksInFlightMax()),
                (b, v) -> b.chunksInFlightMax((int) parseLong(v)));
        add(knobs, p + "backing_io_sectors_max", "largest merged backing write in sectors; default 2048 (1 MiB)",
                writeback, s -> String.valueOf(s.backingIoSectorsMax()),
                (b, v) -> b.backingIoSectorsMax((int) parseLong(v)));
        add(knobs, p + "dirty_expire_ms", "age after which dirty data is written back under load; default 30000",
                writeback, s -> String.valueOf(s.dirtyExpireNs() / MS), (b, v) -> b.dirtyExpireNs(parseLong(v) * MS));
        add(knobs, p + "rescan_delay_ms", "while busy, rest after a scan of the whole index before the next;"
                + " default 1000 (bcache writeback_delay: 30 s)", writeback,
                s -> String.valueOf(s.rescanDelayNs() / MS), (b, v) -> b.rescanDelayNs(parseLong(v) * MS));
        add(knobs, p + "classic_idle_ms", "quiet time before classic runs at full speed; default 30000", writeback,
                s -> String.valueOf(s.classicIdleNs() / MS), (b, v) -> b.classicIdleNs(parseLong(v) * MS));
        add(knobs, p + "fragment_boost", "bcache's fragmentation boost of P (true|false); default true", writeback,
                s -> String.valueOf(s.fragmentBoost()), (b, v) -> b.fragmentBoost(parseBoolean(v)));
    }

    private static void add(KnobRegistry knobs, String name, String description, Writeback writeback,
                            Function<WritebackSettings, String> getter,
                            BiFunction<WritebackSettings.Builder, String, WritebackSettings.Builder> setter) {
        knobs.register(Knob.of(name, description, () -> getter.apply(writeback.settings()),
                value -> writeback.setSettings(setter.apply(writeback.settings().toBuilder(), value.trim()).build())));
    }

    private static long parseLong(String value) {
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("expected an integer, got \"" + value + "\"");
        }
    }

    private static boolean parseBoolean(String value) {
        if (value.equalsIgnoreCase("true") || value.equalsIgnoreCase("false")) {
            return Boolean.parseBoolean(value);
        }
        throw new IllegalArgumentException("expected true or false, got \"" + value + "\"");
    }

    private static <E extends Enum<E>> E parseEnum(Class<E> type, String value) {
        try {
            return Enum.valueOf(type, value.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            StringBuilder allowed = new StringBuilder();
            for (E constant : type.getEnumConstants()) {
                allowed.append(allowed.length() == 0 ? "" : ", ").append(constant.name().toLowerCase(Locale.ROOT));
            }
            throw new IllegalArgumentException("expected one of " + allowed + ", got \"" + value + "\"");
        }
    }
}
