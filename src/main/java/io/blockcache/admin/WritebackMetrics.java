package io.blockcache.admin;

import static io.blockcache.admin.MetricDescriptor.counter;
import static io.blockcache.admin.MetricDescriptor.gauge;
import static io.blockcache.admin.MetricScope.WRITEBACK;
import static io.blockcache.admin.MetricUnit.BOOLEAN;
import static io.blockcache.admin.MetricUnit.BYTES_PER_SECOND;
import static io.blockcache.admin.MetricUnit.COUNT;
import static io.blockcache.admin.MetricUnit.SECTORS;
import static io.blockcache.admin.MetricUnit.SECTORS_PER_SECOND;

import io.blockcache.admin.MetricDescriptor.JsonForm;
import java.util.List;

/**
 * The metrics of one volume's writeback (docs/OPERATIONS.md §7 "Writeback"), label {@code volume}. The rate
 * controller's terms were exported in sectors until 2026-12-07; those names stay one release as deprecated series.
 *
 * <p>Thread rule: any thread (constants).
 */
public final class WritebackMetrics {
    public static final MetricDescriptor<WritebackSnapshot> RUNNING = gauge(WRITEBACK, "blockcache_writeback_running",
            BOOLEAN, "1 if writeback runs, 0 if paused by its knob.")
            .json("running", w -> w.running() ? 1 : 0);
    public static final MetricDescriptor<WritebackSnapshot> FRONT_END_IDLE = gauge(WRITEBACK,
            "blockcache_writeback_front_end_idle", BOOLEAN,
            "1 if the front end was idle at the last sample (writeback then runs at full speed).")
            .json("state", w -> w.frontEndIdle() ? 1 : 0).jsonDerived();
    public static final MetricDescriptor<WritebackSnapshot> OVERLOADED = gauge(WRITEBACK,
            "blockcache_writeback_overloaded", BOOLEAN, "1 while a busy front end outruns the controlled rate and"
                    + " writeback runs at full speed (docs/WRITEBACK.md \"Sustained writes\"); the rate gauge then"
                    + " shows the controller's value, not what is written back.")
            .json("overloaded", w -> w.overloaded() ? 1 : 0);
    public static final MetricDescriptor<WritebackSnapshot> DRAINING = gauge(WRITEBACK,
            "blockcache_writeback_draining", BOOLEAN, "1 while a drain started through the admin API runs.")
            .json("drain.state", w -> w.drain().state().equals("running") ? 1 : 0).jsonDerived();
    public static final MetricDescriptor<WritebackSnapshot> WRITTEN = counter(WRITEBACK,
            "blockcache_writeback_written_bytes_total", SECTORS,
            "Bytes written back and marked clean behind a backing flush.")
            .json("writtenBackSectors", WritebackSnapshot::writtenBackSectors);
    public static final MetricDescriptor<WritebackSnapshot> BACKING_WRITES = counter(WRITEBACK,
            "blockcache_writeback_backing_write_bytes_total", SECTORS, "Bytes in backing writes writeback issued.")
            .json("backingWriteSectors", WritebackSnapshot::backingWriteSectors);
    public static final MetricDescriptor<WritebackSnapshot> PASSES = counter(WRITEBACK,
            "blockcache_writeback_passes_total", COUNT, "Writeback passes started.")
            .json("passes", WritebackSnapshot::passes);
    public static final MetricDescriptor<WritebackSnapshot> PASS_DURATION = MetricDescriptor.histogram(WRITEBACK,
            "blockcache_writeback_pass_duration_seconds", "How long each writeback pass took, from its cache reads to"
                    + " the end of its last backing write.", (writeback, label) -> writeback.passDurations())
            .json("passesEnded", writeback -> writeback.passDurations().count());
    public static final MetricDescriptor<WritebackSnapshot> KEYS_IN_FLIGHT = gauge(WRITEBACK,
            "blockcache_writeback_keys_in_flight", COUNT, "Keys between pass start and clean marking.")
            .json("keysInFlight", WritebackSnapshot::keysInFlight);
    public static final MetricDescriptor<WritebackSnapshot> BACKING_WRITES_IN_FLIGHT = gauge(WRITEBACK,
            "blockcache_writeback_backing_writes_in_flight", COUNT, "Writeback's own backing writes in flight.")
            .json("backingWritesInFlight", WritebackSnapshot::backingWritesInFlight);
    public static final MetricDescriptor<WritebackSnapshot> MEASURED_BANDWIDTH = gauge(WRITEBACK,
            "blockcache_writeback_measured_backing_bytes_per_second", BYTES_PER_SECOND,
            "Backing bandwidth measured by the queue governor.")
            .json("measuredBackingBytesPerSecond", WritebackSnapshot::measuredBackingBytesPerSecond)
            .jsonAs(BYTES_PER_SECOND, JsonForm.NUMBER);
    public static final MetricDescriptor<WritebackSnapshot> RATE = gauge(WRITEBACK,
            "blockcache_writeback_rate_bytes_per_second", SECTORS_PER_SECOND,
            "PI-controlled writeback rate while the front end is busy.")
            .json("rate.rateSectorsPerSecond", w -> w.rate().rateSectorsPerSecond())
            .deprecated("blockcache_writeback_rate_sectors_per_second");
    public static final MetricDescriptor<WritebackSnapshot> RATE_TARGET = gauge(WRITEBACK,
            "blockcache_writeback_rate_target_bytes", SECTORS, "Dirty bytes the rate controller aims at.")
            .json("rate.targetSectors", w -> w.rate().targetSectors())
            .deprecated("blockcache_writeback_rate_target_sectors");
    public static final MetricDescriptor<WritebackSnapshot> RATE_ERROR = gauge(WRITEBACK,
            "blockcache_writeback_rate_error_bytes", SECTORS, "Dirty minus target bytes.")
            .json("rate.errorSectors", w -> w.rate().errorSectors())
            .deprecated("blockcache_writeback_rate_error_sectors");
    public static final MetricDescriptor<WritebackSnapshot> RATE_PROPORTIONAL = gauge(WRITEBACK,
            "blockcache_writeback_rate_proportional_bytes_per_second", SECTORS_PER_SECOND, "P term of the rate.")
            .json("rate.proportionalSectorsPerSecond", w -> w.rate().proportionalSectorsPerSecond())
            .deprecated("blockcache_writeback_rate_proportional_sectors_per_second");
    public static final MetricDescriptor<WritebackSnapshot> RATE_INTEGRAL = gauge(WRITEBACK,
            "blockcache_writeback_rate_integral_bytes_per_second", SECTORS_PER_SECOND, "I term of the rate.")
            .json("rate.integralSectorsPerSecond", w -> w.rate().integralSectorsPerSecond())
            .deprecated("blockcache_writeback_rate_integral_sectors_per_second");
    public static final MetricDescriptor<WritebackSnapshot> RATE_CHANGE = gauge(WRITEBACK,
            "blockcache_writeback_rate_change_bytes_per_second", SECTORS_PER_SECOND,
            "Change of the rate at the last update.")
            .json("rate.changeSectorsPerSecond", w -> w.rate().changeSectorsPerSecond())
            .deprecated("blockcache_writeback_rate_change_sectors_per_second");
    public static final MetricDescriptor<WritebackSnapshot> RATE_FRAGMENT_BOOST = gauge(WRITEBACK,
            "blockcache_writeback_rate_fragment_boost_bytes_per_second", SECTORS_PER_SECOND,
            "Fragmentation term of the rate (0 when it did not apply).")
            .json("rate.fragmentBoostSectorsPerSecond", w -> w.rate().fragmentBoostSectorsPerSecond())
            .deprecated("blockcache_writeback_rate_fragment_boost_sectors_per_second");
    public static final MetricDescriptor<WritebackSnapshot> ERRORS = counter(WRITEBACK,
            "blockcache_writeback_errors_total", COUNT, "Writeback failures by kind; their keys stay dirty.")
            .label("kind")
            .series("cache_read", "errors.cacheRead", WritebackSnapshot::readErrors)
            .series("checksum", "errors.checksum", WritebackSnapshot::checksumErrors)
            .series("backing_write", "errors.backingWrite", WritebackSnapshot::writeErrors)
            .series("backing_flush", "errors.backingFlush", WritebackSnapshot::flushErrors);
    public static final MetricDescriptor<WritebackSnapshot> DIRTY_EPOCHS = gauge(WRITEBACK,
            "blockcache_writeback_dirty_epochs", COUNT,
            "Flush epochs that still hold dirty data (ordering=epochs; 0 without it).")
            .json("epochs.dirtyEpochs", w -> w.epochs().dirtyEpochs());
    public static final MetricDescriptor<WritebackSnapshot> LOG_GROUPS = counter(WRITEBACK,
            "blockcache_writeback_log_groups_total", COUNT,
            "Groups of epochs journaled write-back committed to the backing log (ordering=journaled).")
            .json("epochs.logGroups", w -> w.epochs().logGroups());
    public static final MetricDescriptor<WritebackSnapshot> EPOCH_WAITS = counter(WRITEBACK,
            "blockcache_writeback_epoch_waits_total", COUNT,
            "Front-end requests that waited for older epochs to be written back.")
            .json("epochs.waitsTotal", w -> w.epochs().waitsTotal());
    public static final MetricDescriptor<WritebackSnapshot> DEGRADED = gauge(WRITEBACK, "blockcache_volume_degraded",
            BOOLEAN, "1 once the volume's backing file changed under it (deleted, replaced, truncated): writeback is"
                    + " held until a restart; /api/stats says why.")
            .json("degraded", w -> w.degraded() != null ? 1 : 0).jsonDerived();
    public static final MetricDescriptor<WritebackSnapshot> ORDER_HELD = gauge(WRITEBACK,
            "blockcache_writeback_order_held", BOOLEAN, "1 while the volume holds writeback and writes around the"
                    + " cache until an ordering switch is durable; long at 1 means a failing journal or map device.")
            .json("epochs.orderHeld", w -> w.epochs().orderHeld() ? 1 : 0);

    /** In the order {@code /metrics} lists them. */
    static final List<MetricDescriptor<?>> ALL = List.of(RUNNING, FRONT_END_IDLE, OVERLOADED, DRAINING, WRITTEN,
            BACKING_WRITES, PASSES, KEYS_IN_FLIGHT, BACKING_WRITES_IN_FLIGHT, MEASURED_BANDWIDTH, RATE, RATE_TARGET,
            RATE_ERROR, RATE_PROPORTIONAL, RATE_INTEGRAL, RATE_CHANGE, RATE_FRAGMENT_BOOST, ERRORS, DIRTY_EPOCHS,
            LOG_GROUPS, EPOCH_WAITS, DEGRADED, ORDER_HELD, PASS_DURATION);

    private WritebackMetrics() {
    }
}
