package io.blockcache.crash;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.ForwardingDevice;
import io.blockcache.device.IoResult;
import io.blockcache.engine.BackingSpec;
import io.blockcache.engine.CacheSet;
import io.blockcache.engine.CacheSetOptions;
import io.blockcache.engine.Outcome;
import io.blockcache.loop.Prng;
import io.blockcache.loop.SimLoop;
import io.blockcache.sim.ContractViolation;
import io.blockcache.sim.CrashPointClock;
import io.blockcache.sim.CrashPointDevice;
import io.blockcache.sim.HddModel;
import io.blockcache.sim.LoopRunner;
import io.blockcache.sim.SmallDevices;
import io.blockcache.sim.SsdModel;
import io.blockcache.volume.CacheMode;
import io.blockcache.volume.Volume;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.function.Consumer;

/**
 * One replay of the volume-change script on a tiny cache set (as {@link CrashPointRun}: volatile write caches on
 * every device), halted by its {@link CrashPointClock}, then a power cut keeping a chosen subset of the pending writes,
 * recovery and the checks: the cache opens, each volume is attached and sized as the old or the new state of the
 * change cut, never anything else, and every acknowledged FLUSH kept its data.
 *
 * <p>The script: write and flush vol0; attach vol1; write and flush vol1; drain vol1; detach vol1; grow vol0 from 1 to
 * 2 MiB (its device grown first); write and flush past the old end. Thread rule: the test's thread.
 */
final class VolumeChangeRun {
    static final long VOLUME_BYTES = 1L << 20;
    static final long GROWN_VOLUME_BYTES = 2L << 20;
    static final long HEADER_BYTES = 1L << 20;
    static final long CACHE_BYTES = (1L << 20) + 16L * (128 << 10);
    private static final long STALL_EVENTS_MAX = 2_000_000;
    private static final int DATA_BYTES = 64 << 10;

    /** The steps of the script, in order; {@link #acknowledged} says how far it got. */
    enum Step { WRITE0, ADD1, WRITE1, DRAIN1, REMOVE1, GROW0, WRITE_GROWN, DONE }

    private final SimLoop loop = new SimLoop();
    private final SsdModel cache = SmallDevices.ssd(loop, CACHE_BYTES);
    private final HddModel disk0 = SmallDevices.hdd(loop, HEADER_BYTES + GROWN_VOLUME_BYTES);
    private final HddModel disk1 = SmallDevices.hdd(loop, HEADER_BYTES + VOLUME_BYTES);
    /** vol0's store: the disk, shown 1 MiB smaller until the script grows it (a file grown by the host). */
    private final Growable store0 = new Growable(disk0, HEADER_BYTES + VOLUME_BYTES);
    private final CrashPointClock clock;
    private final BlockDevice view1;
    private final String label;
    private final LoopRunner runner;
    private final CacheSetOptions options = CacheSetOptions.defaults().withBucketSizeBytes(128 << 10)
            .withJournalBuckets(3).withMode(CacheMode.WRITEBACK).withDamageMap(true);
    private Step started = Step.WRITE0;
    private Step acknowledged;
    private CacheSet set;

    VolumeChangeRun(CrashPointClock clock, String label) {
        this.clock = clock;
        this.view1 = new CrashPointDevice(disk1, "vol1", clock);
        this.label = label;
        this.runner = new LoopRunner(loop, STALL_EVENTS_MAX,
                (what, detail) -> new ContractViolation(label + ", " + what + ": " + detail));
    }

    /** Formats with vol0 (bare devices, no crash points) and opens through the clock's devices. */
    void start() {
        Outcome<Void> formatted = await(done -> CacheSet.format(loop, cache, List.of(new BackingSpec("vol0", store0)),
                options, new Prng(1), f -> { }, done), "format", false);
        check(formatted.isOk(), "format failed: " + formatted.error());
        BlockDevice cacheView = new CrashPointDevice(cache, "cache", clock);
        BlockDevice view0 = new CrashPointDevice(store0, "vol0", clock);
        Outcome<CacheSet> opened = await(done -> CacheSet.open(loop, cacheView, List.of(new BackingSpec("vol0", view0)),
                options, done), "open", false);
        check(opened.isOk(), "open failed: " + opened.error());
        set = opened.value();
    }

    /** Runs the script until its end or the crash point. */
    void runScript() {
        for (Step step : Step.values()) {
            if (clock.halted() || step == Step.DONE) {
                return;
            }
            started = step;
            if (!runStep(step) || clock.halted()) {
                return;
            }
            acknowledged = step;
        }
    }

    /** Runs one step to its answer; false if the crash point came first. */
    private boolean runStep(Step step) {
        switch (step) {
            case WRITE0 -> {
                return writeAndFlush(set.volume("vol0"), 0, 0xA0);
            }
            case ADD1 -> {
                Outcome<Volume> added = await(done -> set.addVolume(new BackingSpec("vol1", view1),
                        CacheMode.WRITEBACK, "",
                        new Prng(2), done), "add");
                return added == null ? false : expectOk(added, "add");
            }
            case WRITE1 -> {
                return writeAndFlush(set.volume("vol1"), 0, 0xB1);
            }
            case DRAIN1 -> {
                IoResult drained = await(done -> set.drain("vol1", progress -> { }, done::accept), "drain");
                check(drained == null || drained.ok(), "drain failed: " + drained);
                return drained != null;
            }
            case REMOVE1 -> {
                Outcome<Void> removed = await(done -> set.removeVolume("vol1", false, done), "remove");
                return removed == null ? false : expectOk(removed, "remove");
            }
            case GROW0 -> {
                store0.grow(HEADER_BYTES + GROWN_VOLUME_BYTES);
                Outcome<Void> grown = await(done -> set.growVolume("vol0", GROWN_VOLUME_BYTES, done), "grow");
                return grown == null ? false : expectOk(grown, "grow");
            }
            case WRITE_GROWN -> {
                return writeAndFlush(set.volume("vol0"), VOLUME_BYTES, 0xC0);
            }
            default -> throw new IllegalStateException("no step " + step);
        }
    }

    int cachePending() {
        return cache.pendingWriteCount();
    }

    int disksPending() {
        return disk0.pendingWriteCount() + disk1.pendingWriteCount();
    }

    /**
     * Power cut here keeping all pending writes ({@code keep}) or none; power on, recover, check, and prove the
     * recovered set still changes: vol1 attached again if it is not.
     */
    void crashRecoverAndCheck(boolean keep) {
        loop.discardPending();
        set = null;
        cache.crash(keep ? all(cache.pendingWriteCount()) : new BitSet());
        disk0.crash(keep ? all(disk0.pendingWriteCount()) : new BitSet());
        disk1.crash(keep ? all(disk1.pendingWriteCount()) : new BitSet());
        cache.powerOn(loop);
        disk0.powerOn(loop);
        disk1.powerOn(loop);
        Outcome<CacheSet> both = open(List.of(new BackingSpec("vol0", store0), new BackingSpec("vol1", disk1)));
        boolean attached1 = both.isOk();
        Outcome<CacheSet> recovered = attached1 ? both : open(List.of(new BackingSpec("vol0", store0)));
        check(recovered.isOk(), "recovery failed: " + recovered.error() + (attached1 ? ""
                : " (with vol1 given too: " + both.error() + ")"));
        CacheSet opened = recovered.value();
        checkAttached(attached1);
        Volume vol0 = opened.volume("vol0");
        boolean grown = vol0.sizeBytes() == GROWN_VOLUME_BYTES;
        check(grown || vol0.sizeBytes() == VOLUME_BYTES, "vol0 has " + vol0.sizeBytes() + " bytes");
        check(grown || !done(Step.GROW0), "vol0 lost its acknowledged grow");
        check(!grown || started.ordinal() >= Step.GROW0.ordinal(), "vol0 grew before the grow began");
        checkData(vol0, 0, 0xA0, done(Step.WRITE0));
        if (grown) {
            checkData(vol0, VOLUME_BYTES, 0xC0, done(Step.WRITE_GROWN));
        }
        if (attached1) {
            checkData(opened.volume("vol1"), 0, 0xB1, done(Step.WRITE1));
        } else {
            // An interrupted attach (header written, superblock not) or a finished detach: vol1 attaches again.
            Outcome<Volume> again = await(done -> opened.addVolume(new BackingSpec("vol1", disk1),
                    CacheMode.WRITEBACK, "",
                    new Prng(3), done), "add after recovery");
            check(again != null && again.isOk(), "vol1 cannot be attached again: " + (again == null ? "no answer"
                    : again.error()));
        }
        check(writeAndFlush(opened.volume("vol1"), 4096, 0xD1), "a write to vol1 after recovery did not answer");
    }

    private void checkAttached(boolean attached1) {
        boolean mustBe = done(Step.ADD1) && started.ordinal() < Step.REMOVE1.ordinal();
        boolean mustNot = !done(Step.ADD1) && started.ordinal() < Step.ADD1.ordinal() || done(Step.REMOVE1);
        check(!mustBe || attached1, "vol1's acknowledged attach was lost");
        check(!mustNot || !attached1, "vol1 is attached though " + (done(Step.REMOVE1) ? "its detach was acknowledged"
                : "no attach began"));
    }

    private boolean done(Step step) {
        return acknowledged != null && acknowledged.ordinal() >= step.ordinal();
    }

    private void checkData(Volume volume, long offsetBytes, int pattern, boolean acknowledgedWrite) {
        ByteBuffer data = ByteBuffer.allocate(DATA_BYTES);
        IoResult read = await(done -> volume.read(offsetBytes, data, done::accept), "read back");
        check(read != null && read.ok(), "read back of " + volume.volumeId() + " failed: " + read);
        byte[] expected = new byte[DATA_BYTES];
        Arrays.fill(expected, (byte) pattern);
        boolean written = Arrays.equals(data.array(), expected);
        boolean zero = Arrays.equals(data.array(), new byte[DATA_BYTES]);
        check(written || (!acknowledgedWrite && zero), "volume " + volume.volumeId() + " at " + offsetBytes + " holds "
                + (zero ? "zeros" : "neither the write nor zeros") + (acknowledgedWrite ? " after its FLUSH" : ""));
    }

    private boolean writeAndFlush(Volume volume, long offsetBytes, int pattern) {
        byte[] bytes = new byte[DATA_BYTES];
        Arrays.fill(bytes, (byte) pattern);
        IoResult written = await(done -> volume.write(offsetBytes, ByteBuffer.wrap(bytes), false, done::accept),
                "write");
        if (written == null) {
            return false;
        }
        check(written.ok(), "write failed: " + written);
        IoResult flushed = await(done -> volume.flush(done::accept), "flush");
        check(flushed == null || flushed.ok(), "flush failed: " + flushed);
        return flushed != null;
    }

    private Outcome<CacheSet> open(List<BackingSpec> specs) {
        return await(done -> CacheSet.open(loop, cache, specs, options, done), "recovery", false);
    }

    private <T> boolean expectOk(Outcome<T> outcome, String what) {
        check(outcome.isOk(), what + " failed: " + outcome.error());
        return true;
    }

    /** Runs until {@code op} answers, or null if the crash point came first. */
    private <T> T await(Consumer<Consumer<T>> op, String what) {
        return await(op, what, set != null);
    }

    /** As above; without {@code haltable} the clock's halt is ignored (before the script, and after the power cut). */
    private <T> T await(Consumer<Consumer<T>> op, String what, boolean haltable) {
        Object[] box = new Object[1];
        boolean[] answered = {false};
        op.accept(value -> {
            box[0] = value;
            answered[0] = true;
        });
        runner.runUntil(() -> answered[0] || (haltable && clock.halted()), what);
        @SuppressWarnings("unchecked")
        T value = answered[0] ? (T) box[0] : null;
        return value;
    }

    private void check(boolean condition, String message) {
        if (!condition) {
            throw new ContractViolation(label + " (step " + started + ", acknowledged " + acknowledged + "): "
                    + message);
        }
    }

    private static BitSet all(int count) {
        BitSet bits = new BitSet();
        bits.set(0, count);
        return bits;
    }

    /** A device shown smaller than it is until grown: a backing file the host extends before the engine's grow. */
    static final class Growable extends ForwardingDevice {
        private long sizeBytes;

        Growable(BlockDevice inner, long sizeBytes) {
            super(inner);
            this.sizeBytes = sizeBytes;
        }

        void grow(long bytes) {
            sizeBytes = bytes;
        }

        @Override
        public long sizeBytes() {
            return sizeBytes;
        }
    }
}
