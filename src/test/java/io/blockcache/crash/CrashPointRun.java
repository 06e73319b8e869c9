package io.blockcache.crash;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import io.blockcache.engine.BackingSpec;
import io.blockcache.engine.CacheSet;
import io.blockcache.engine.CacheSetOptions;
import io.blockcache.fuzz.CleanCopyOracle;
import io.blockcache.loop.Prng;
import io.blockcache.loop.SimLoop;
import io.blockcache.sim.ContractViolation;
import io.blockcache.sim.CrashPointClock;
import io.blockcache.sim.CrashPointDevice;
import io.blockcache.sim.HddModel;
import io.blockcache.sim.LoopRunner;
import io.blockcache.sim.ModelOp;
import io.blockcache.sim.PrefixCheck;
import io.blockcache.sim.ReferenceModel;
import io.blockcache.sim.SectorPattern;
import io.blockcache.sim.SmallDevices;
import io.blockcache.sim.SsdModel;
import io.blockcache.volume.CacheMode;
import io.blockcache.volume.DirtyEpochs;
import io.blockcache.volume.Volume;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * One replay of a {@link ScriptedTrace} on a fresh tiny cache set (16 buckets of 128 KiB, 3 of them journal, in
 * front of a 1 MiB volume on a disk; both devices with volatile write caches), halted by its
 * {@link CrashPointClock}; then a power cut that keeps a chosen set of the devices' pending writes, recovery with
 * {@link CacheSet#open} and the checks: the durability contract against a {@link ReferenceModel} (nothing
 * acknowledged with FUA or before an acknowledged FLUSH is lost; no torn or foreign sector) and the
 * {@link CleanCopyOracle} (every sector not held dirty reads the same through the volume as from the disk).
 *
 * <p>Everything runs in simulated time; every wait is bounded in loop events. Thread rule: the test's thread.
 */
final class CrashPointRun {
    static final long VOLUME_BYTES = 1L << 20;
    /** The volume plus the backing header area (the format's first 1 MiB). */
    static final long BACKING_BYTES = VOLUME_BYTES + (1L << 20);
    static final int BUCKET_BYTES = 128 << 10;
    /** The format's floor: the smallest cache it accepts. */
    static final int CACHE_BUCKETS = 16;
    static final int JOURNAL_BUCKETS = 3;
    /** The 1 MiB metadata area plus the buckets. */
    static final long CACHE_BYTES = (1L << 20) + (long) CACHE_BUCKETS * BUCKET_BYTES;
    /**
     * Simulated time the run goes on after the last step: over the longest journal delay (100 ms) and the
     * writeback and GC timers' first periods, so that background I/O after the trace has crash points too.
     */
    static final long SETTLE_NS = TimeUnit.MILLISECONDS.toNanos(300);
    /** Loop events one awaited thing may take before the run counts as stalled. */
    private static final long STALL_EVENTS_MAX = 2_000_000;
    /** 256 KiB per verifying read, as the range verifier. */
    private static final int CHUNK_BYTES = 256 << 10;
    private static final String VOLUME = "vol0";
    /** Loop events between two prefix checks while recovered data is written back (a few backing I/Os). */
    private static final int PREFIX_CHECK_EVENTS = 16;

    private final SimLoop loop = new SimLoop();
    private final SsdModel cache = SmallDevices.ssd(loop, CACHE_BYTES);
    private final HddModel backing = SmallDevices.hdd(loop, BACKING_BYTES);
    private final ReferenceModel model = new ReferenceModel(VOLUME_BYTES / BlockDevice.SECTOR_BYTES);
    private final CrashPointClock clock;
    private final CacheSetOptions options;
    private final String label;
    private final LoopRunner runner;
    // Answers of the steps submitted and not yet checked, with what each step was.
    private final List<IoResult[]> answers = new ArrayList<>();
    private final List<String> answered = new ArrayList<>();
    private final boolean cacheFlushLies;
    private final boolean epochs;
    private long prefixChecks;
    private int recoveredEpochs;
    private CacheSet set;
    private CacheMode modeNow;

    /**
     * A run in {@code mode}, journal delay {@code journalDelayNs}; {@code label} starts its failure messages. With
     * {@code cacheFlushLies} the cache device acknowledges every flush of the trace at once without flushing (a
     * planted bug that the enumeration must catch).
     */
    CrashPointRun(CacheMode mode, long journalDelayNs, CrashPointClock clock, String label, boolean cacheFlushLies) {
        this(mode, journalDelayNs, clock, label, cacheFlushLies, false);
    }

    /**
     * As above; with {@code epochs} the volume runs with {@code writeback.vol0.ordering=epochs} from its first open
     * (set at every open, as {@code serve} applies its config), and each crash state is also checked for the epoch
     * promise ({@link #checkEpochs}).
     */
    CrashPointRun(CacheMode mode, long journalDelayNs, CrashPointClock clock, String label, boolean cacheFlushLies,
                  boolean epochs) {
        this.epochs = epochs;
        this.cacheFlushLies = cacheFlushLies;
        this.modeNow = mode;
        this.clock = clock;
        this.label = label;
        this.options = CacheSetOptions.defaults().withBucketSizeBytes(BUCKET_BYTES).withJournalBuckets(JOURNAL_BUCKETS)
                .withJournalDelayNs(journalDelayNs).withMode(mode)
                // Clean copies covered 20 ms after they were filled, well inside each trace's 300 ms tail, so crash
                // points fall before, during and after covering rounds (docs/FORMAT.md §7 rule 10).
                .withCleanCoverIntervalNs(java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(20));
        this.runner = new LoopRunner(loop, STALL_EVENTS_MAX,
                (what, detail) -> new ContractViolation(label + ", " + what + ": " + detail));
    }

    /** Formats (on the bare devices, no crash points) and opens through the clock's devices. */
    void start() {
        IoResult[] formatted = {null};
        CacheSet.format(loop, cache, List.of(new BackingSpec(VOLUME, backing)), options, new Prng(1), f -> { },
                outcome -> formatted[0] = outcome.isOk() ? IoResult.OK : failed("format failed: " + outcome.error()));
        runner.runUntil(() -> formatted[0] != null, "format");
        BlockDevice cacheDevice = cacheFlushLies ? new LyingFlushDevice(cache, loop) : cache;
        BlockDevice cacheView = new CrashPointDevice(cacheDevice, "cache", clock);
        BlockDevice backingView = new CrashPointDevice(backing, "backing", clock);
        set = open(cacheView, backingView, "open");
    }

    /** Runs {@code trace} step by step, then {@link #SETTLE_NS} more, stopping at once when the clock halts. */
    void runTrace(ScriptedTrace trace) {
        for (ScriptedTrace.Step step : trace.steps()) {
            if (clock.halted()) {
                return;
            }
            runStep(step);
        }
        awaitAnswers("the steps left in flight");
        boolean[] settled = {false};
        loop.schedule(SETTLE_NS, () -> settled[0] = true);
        runner.runUntil(() -> settled[0] || clock.halted(), "settling after the trace");
    }

    /** Writes not yet durable on the cache device now. */
    int cachePendingWrites() {
        return cache.pendingWriteCount();
    }

    /** Writes not yet durable on the backing device now. */
    int backingPendingWrites() {
        return backing.pendingWriteCount();
    }

    /**
     * Cuts the power here (pending loop events are dropped), keeping exactly the chosen pending writes of each
     * device; powers on, recovers and checks. Throws {@link ContractViolation} on a broken contract.
     *
     * @return sectors checked whose durable value was written data (not zero)
     */
    long crashRecoverAndCheck(BitSet cacheSurvivors, BitSet backingSurvivors) {
        loop.discardPending();
        set = null; // gone with the power; nothing of it may be used again
        cache.crash(cacheSurvivors);
        backing.crash(backingSurvivors);
        cache.powerOn(loop);
        backing.powerOn(loop);
        if (epochs) {
            checkPrefix("in the power cut, the backing device alone");
        }
        CacheSet recovered = open(cache, backing, "recovery");
        Volume volume = recovered.volumes().get(0);
        for (long offsetBytes = 0; offsetBytes < VOLUME_BYTES; offsetBytes += CHUNK_BYTES) {
            ByteBuffer data = read(volume, offsetBytes);
            ReferenceModel.Mismatch mismatch = model.checkRecovered(offsetBytes / BlockDevice.SECTOR_BYTES, data);
            if (mismatch != null) {
                throw new ContractViolation(label + ", after recovery: " + mismatch);
            }
        }
        String cleanMismatch = CleanCopyOracle.check(volume, VOLUME_BYTES, runner);
        if (cleanMismatch != null) {
            throw new ContractViolation(label + ", after recovery: a clean copy disagrees with the backing device: "
                    + cleanMismatch);
        }
        if (epochs) {
            checkEpochs(recovered, volume);
        }
        return model.durableWrittenSectorsChecked();
    }

    /**
     * The epoch promise across the crash (docs/WRITEBACK.md "Epoch ordering"): recovered dirty data has its epochs
     * back (none of unknown order: ordering was on from the start), and while writeback writes it back, the backing
     * device alone stays the volume at some FLUSH boundary of the history before the crash, checked every few events.
     */
    private void checkEpochs(CacheSet recovered, Volume volume) {
        DirtyEpochs dirty = volume.index().epochs();
        recoveredEpochs = dirty.epochsHeld();
        if (dirty.sectors() > 0 && dirty.oldest() == DirtyEpochs.ORDER_UNKNOWN) {
            throw new ContractViolation(label + ", after recovery: " + dirty.sectors()
                    + " dirty sectors of unknown order: the epochs were not restored");
        }
        recovered.knobs().find("writeback." + VOLUME + ".percent").set("0");
        recovered.knobs().find("writeback." + VOLUME + ".running").set("true");
        for (long slices = 0; volume.index().extents().dirtySectors() > 0; slices++) {
            if (slices > STALL_EVENTS_MAX / PREFIX_CHECK_EVENTS) {
                throw new ContractViolation(label + ", after recovery: writeback did not finish");
            }
            runner.runAtMost(PREFIX_CHECK_EVENTS, () -> false);
            checkPrefix("after recovery, while writing back, the backing device alone");
        }
    }

    private void checkPrefix(String when) {
        ByteBuffer contents = ByteBuffer.allocate((int) VOLUME_BYTES);
        backing.peek(BACKING_BYTES - VOLUME_BYTES, contents);
        String broken = PrefixCheck.check(model.copyAfterCrash(), contents); // FLUSHes in flight promised nothing
        prefixChecks++;
        if (broken != null) {
            throw new ContractViolation(label + ", " + when + " is not the volume at any FLUSH boundary: " + broken);
        }
    }

    /** Epochs that held dirty data after recovery (with {@code epochs}). */
    int recoveredEpochs() {
        return recoveredEpochs;
    }

    /** Prefix-oracle checks made (with {@code epochs}). */
    long prefixChecks() {
        return prefixChecks;
    }

    private void runStep(ScriptedTrace.Step step) {
        String what = "step " + step;
        Volume volume = set.volumes().get(0);
        switch (step.kind()) {
            case WRITE, FUA_WRITE -> write(volume, step);
            case WRITE_ZEROES -> {
                ModelOp op = new ModelOp(ModelOp.Kind.WRITE_ZEROES, step.offsetBytes(), step.lengthBytes(), false);
                ReferenceModel.Entry entry = model.submit(op);
                submit(done -> volume.writeZeroes(op.offsetBytes(), op.lengthBytes(), false, done),
                        () -> model.acknowledge(entry, op), what);
            }
            case FLUSH -> {
                model.boundary(); // a FLUSH closes an epoch at its submission (the prefix oracle's cuts)
                long mark = model.flushSubmitted();
                submit(volume::flush, () -> model.flushAcknowledged(mark), what);
            }
            case DRAIN -> submit(done -> set.drain(VOLUME, progress -> { }, done), () -> { }, what);
            case WRITEBACK -> {
                set.knobs().find("writeback." + VOLUME + ".percent").set("0");
                runner.runUntil(() -> volume.index().extents().dirtySectors() == 0 || clock.halted(), what);
            }
            case SWITCH_MODE -> {
                modeNow = CacheMode.values()[(modeNow.ordinal() + 1) % CacheMode.values().length];
                set.knobs().find("volume." + VOLUME + ".mode").set(modeNow.name().toLowerCase(Locale.ROOT));
            }
        }
        if (step.awaited()) {
            awaitAnswers(what);
        }
    }

    private void write(Volume volume, ScriptedTrace.Step step) {
        boolean fua = step.kind() == ScriptedTrace.Kind.FUA_WRITE;
        ModelOp op = new ModelOp(ModelOp.Kind.WRITE, step.offsetBytes(), step.lengthBytes(), fua);
        if (fua) {
            model.boundary(); // so does a FUA write, before it
        }
        ReferenceModel.Entry entry = model.submit(op);
        ByteBuffer data = ByteBuffer.allocate((int) op.lengthBytes());
        for (int i = 0; i < op.lengthSectors(); i++) {
            SectorPattern.fill(entry.writeId(), op.startSector() + i, data);
        }
        data.flip();
        submit(done -> volume.write(op.offsetBytes(), data, fua, done), () -> model.acknowledge(entry, op),
                "step " + step);
    }

    /** Submits a request; its answer (recorded in the model when OK) is checked by {@link #awaitAnswers}. */
    private void submit(Consumer<IoCallback> request, Runnable onOk, String what) {
        IoResult[] result = {null};
        answers.add(result);
        answered.add(what);
        request.accept(r -> {
            result[0] = r;
            if (r.ok()) {
                onOk.run();
            }
        });
    }

    /** Runs until every submitted step has answered (then checks they succeeded) or the crash point. */
    private void awaitAnswers(String what) {
        runner.runUntil(() -> clock.halted() || answers.stream().allMatch(r -> r[0] != null), what);
        for (int i = 0; i < answers.size(); i++) {
            IoResult result = answers.get(i)[0];
            if (result != null && !result.ok()) {
                throw new ContractViolation(label + ", " + answered.get(i) + " failed: " + result);
            }
        }
        if (!clock.halted()) {
            answers.clear();
            answered.clear();
        }
    }

    private CacheSet open(BlockDevice cacheDevice, BlockDevice backingDevice, String what) {
        CacheSet[] opened = {null};
        String[] error = {null};
        CacheSet.open(loop, cacheDevice, List.of(new BackingSpec(VOLUME, backingDevice)), options, outcome -> {
            if (outcome.isOk()) {
                opened[0] = outcome.value();
                if (epochs) {
                    opened[0].knobs().find("writeback." + VOLUME + ".ordering").set("epochs");
                    if (what.equals("recovery")) {
                        // Held until the read-back is checked, so that checkEpochs sees the recovered epochs written.
                        opened[0].knobs().find("writeback." + VOLUME + ".running").set("false");
                    }
                }
            } else {
                error[0] = outcome.error();
            }
        });
        BooleanSupplier answered = () -> opened[0] != null || error[0] != null;
        runner.runUntil(answered, what);
        if (error[0] != null) {
            throw new ContractViolation(label + ", " + what + " failed: " + error[0]);
        }
        return opened[0];
    }

    private ByteBuffer read(Volume volume, long offsetBytes) {
        ByteBuffer data = ByteBuffer.allocate(CHUNK_BYTES);
        IoResult[] result = {null};
        volume.read(offsetBytes, data.duplicate(), r -> result[0] = r);
        String what = "after recovery, read-back of bytes [" + offsetBytes + ", +" + CHUNK_BYTES + ")";
        runner.runUntil(() -> result[0] != null, what);
        if (!result[0].ok()) {
            throw new ContractViolation(label + ", " + what + " failed: " + result[0]);
        }
        return data;
    }

    private static IoResult failed(String message) {
        return IoResult.error(IoStatus.IO_ERROR, message);
    }
}
