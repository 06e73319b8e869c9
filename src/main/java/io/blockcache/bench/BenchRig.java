package io.blockcache.bench;

import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.engine.BackingSpec;
import io.blockcache.engine.CacheSet;
import io.blockcache.engine.CacheSetOptions;
import io.blockcache.engine.Outcome;
import io.blockcache.loop.Checks;
import io.blockcache.loop.EventLoop;
import io.blockcache.loop.Prng;
import io.blockcache.loop.SimLoop;
import io.blockcache.sim.HddConfig;
import io.blockcache.sim.HddModel;
import io.blockcache.sim.SimDevice;
import io.blockcache.sim.SsdConfig;
import io.blockcache.sim.SsdModel;
import io.blockcache.volume.Volume;
import io.blockcache.writeback.Writeback;
import io.blockcache.writeback.WritebackOrdering;
import io.blockcache.writeback.WritebackSettings;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * One cache set in simulated time for a writeback experiment: a default SSD model (sized to the experiment) caching
 * one HDD model (or another backing model, e.g. the object store), one volume, and helpers that run the loop until
 * something is done.
 *
 * <p>Thread rule: the thread that created it drives the loop; everything runs there.
 */
final class BenchRig {
    static final String NAME = "bench";
    /** Bound on virtual time any wait may take: an experiment that never finishes is a bug, not a result. */
    static final long WAIT_NS_MAX = 24L * 3600 * 1_000_000_000L;
    /**
     * The backing log a rig whose settings say {@code ordering=journaled} is formatted with: twice the epoch
     * experiments' 128 MiB dirty set, the size at which the journaled bound came within 0.96x of unordered writeback
     * (docs/BENCHMARKS.md "Journaled write-back: the bound").
     */
    static final long JOURNALED_LOG_BYTES = 256L << 20;

    final SimLoop loop = new SimLoop();
    final SsdModel ssd;
    /** The backing device when it is a disk (null for other models). */
    final HddModel hdd;
    /** The backing device, whatever its model. */
    final SimDevice backing;
    final CacheSet set;

    /**
     * Formats and opens a cache set.
     *
     * @param cacheBytes size of the SSD model (must hold the dirty set with room to spare)
     * @param hdd the backing disk's configuration
     * @param settings the writeback settings to start with
     */
    BenchRig(long cacheBytes, HddConfig hdd, WritebackSettings settings) {
        this(cacheBytes, loop -> new HddModel(loop, hdd), settings);
    }

    /**
     * Formats and opens a cache set over the backing device {@code backingModel} builds on the rig's loop.
     *
     * @param cacheBytes size of the SSD model (must hold the dirty set with room to spare)
     */
    BenchRig(long cacheBytes, Function<EventLoop, SimDevice> backingModel, WritebackSettings settings) {
        this(cacheBytes, backingModel, settings,
                settings.ordering() == WritebackOrdering.JOURNALED ? JOURNALED_LOG_BYTES : 0);
    }

    /** As {@link #BenchRig(long, Function, WritebackSettings)}, the backing given a log of {@code logBytes}. */
    BenchRig(long cacheBytes, Function<EventLoop, SimDevice> backingModel, WritebackSettings settings, long logBytes) {
        SsdConfig d = SsdConfig.defaults();
        this.ssd = new SsdModel(loop, new SsdConfig(cacheBytes, d.readLatencyNs(), d.writeLatencyNs(),
                d.channelCount(), d.readBytesPerSecond(), d.writeBytesPerSecond(), d.writeCacheBytes(), d.flushNs()));
        this.backing = backingModel.apply(loop);
        this.hdd = backing instanceof HddModel disk ? disk : null;
        List<BackingSpec> backings = List.of(new BackingSpec(NAME, this.backing).withLogSizeBytes(logBytes));
        Outcome<Void> formatted = await(done -> CacheSet.format(loop, ssd, backings, CacheSetOptions.defaults(),
                new Prng(1), fraction -> { }, done));
        Checks.check(formatted.isOk(), "format failed: %s", formatted.error());
        Outcome<CacheSet> opened = await(done -> CacheSet.open(loop, ssd, backings, CacheSetOptions.defaults(),
                done));
        this.set = opened.orThrow();
        writeback().setSettings(settings);
    }

    Volume volume() {
        return set.volume(NAME);
    }

    Writeback writeback() {
        return set.writeback(NAME);
    }

    /** Changes some writeback settings now. */
    void tune(UnaryOperator<WritebackSettings.Builder> change) {
        writeback().setSettings(change.apply(writeback().settings().toBuilder()).build());
    }

    long dirtyBytes() {
        return writeback().dirtyBytes();
    }

    /** Runs the loop until {@code condition} holds, failing after {@link #WAIT_NS_MAX} of virtual time. */
    void runUntil(java.util.function.BooleanSupplier condition) {
        runUntil(loop, condition);
    }

    /** Runs {@code loop} until {@code condition} holds, failing after {@link #WAIT_NS_MAX} of virtual time. */
    static void runUntil(SimLoop loop, java.util.function.BooleanSupplier condition) {
        long deadlineNs = loop.nowNs() + WAIT_NS_MAX;
        while (!condition.getAsBoolean()) {
            Checks.check(loop.nowNs() < deadlineNs, "condition not reached within %s s of virtual time",
                    WAIT_NS_MAX / 1e9);
            Checks.check(loop.step(), "the loop ran dry before the condition held");
        }
    }

    /** Runs an asynchronous operation to its answer. */
    <T> T await(Consumer<Consumer<T>> op) {
        Object[] box = new Object[1];
        boolean[] answered = new boolean[1];
        op.accept(value -> {
            box[0] = value;
            answered[0] = true;
        });
        runUntil(() -> answered[0]);
        @SuppressWarnings("unchecked")
        T value = (T) box[0];
        return value;
    }

    /** Runs one I/O to completion and fails unless it succeeded. */
    void io(Consumer<IoCallback> op) {
        IoResult result = await(done -> op.accept(done::accept));
        Checks.check(result.ok(), "I/O failed: %s", result);
    }

}
