package io.blockcache.writeback;

import io.blockcache.backinglog.BackingLogRegion;
import io.blockcache.backinglog.ChunkBuffers;
import io.blockcache.backinglog.LogGroupWriter;
import io.blockcache.backinglog.LogReplay;
import io.blockcache.device.BlockDevice;
import io.blockcache.index.ExtentIndex;
import io.blockcache.index.ExtentLocation;
import io.blockcache.loop.EventLoop;
import io.blockcache.volume.CacheExtentReader;
import io.blockcache.volume.DirtyEpochs;
import io.blockcache.volume.Volume;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Journaled write-back (knob {@code ordering=journaled}; docs/WRITEBACK.md "Journaled write-back"): while two or more
 * closed epochs are dirty, writeback takes the oldest of them together as one <em>group</em>, as many as the backing
 * log holds, and
 * <ol>
 *   <li>LOGGING: reads every dirty extent of those epochs from the cache into the log ({@link LogGroupWriter}) and
 *       commits it: from then on the group is atomic on the backing device;</li>
 *   <li>PLACING: lets the ordinary passes write those epochs in place, restricted to them, in one sorted sweep of
 *       the whole group (the sort window unordered writeback has), while their clean marking waits
 *       ({@link CleanMarker#defer});</li>
 *   <li>FINISHING: once every dirty sector of the group is written, one backing flush, the log's retire, and only
 *       then the clean marking of the whole group.</li>
 * </ol>
 * A lone dirty epoch (or the open one) is written as {@code ordering=epochs} writes it: in place, in order, no log;
 * the log buys nothing there. The front end's holds are those of epoch ordering ({@link EpochOrder}).
 *
 * <p>After any failure the log may hold a committed group that is only partly in place, so before anything else
 * writes the backing device the log is replayed (REPLAYING: {@link LogReplay}); the engine replays it at open too.
 * A group that turns out larger than the log is dropped before its commit and tried again one epoch shorter.
 *
 * <p>Thread rule: the loop thread.
 */
final class JournaledGroups {
    /** Cache reads in flight while logging: enough to keep a cache device busy, few enough to bound the buffers. */
    static final int LOG_READS_MAX = 32;
    /**
     * Bytes of those reads at most (one read may pass it): an extent can be a whole bucket (up to 8 MiB), and each read
     * fills a log chunk that stays in memory until written, so reads alone would not bound the chunks.
     */
    static final long LOG_READ_BYTES_MAX = 8L << 20;
    /**
     * While writeback is paced (a busy front end), a group holds at most what the pace writes in this time: its data
     * turns clean only when all of it is in place, and a group of the whole dirty set at a PI rate of 0.5 MiB/s took
     * minutes to place (bench writeback, busy case: nothing written back in the window).
     */
    static final long PACED_GROUP_NS = 2_000_000_000L;
    /** Extents examined per logging step: a few hundred microseconds of work. */
    static final int EXAMINED_PER_STEP = DirtyScanner.EXAMINED_PER_SLICE;

    /**
     * Log chunks one volume's logging keeps in memory before it scans on: chunks wait for their reads, their write and
     * their turn in the body's CRC, so a slow read early in the log would otherwise hold every later chunk.
     */
    static final long LOG_BUFFERED_BYTES_MAX = 16L << 20;
    /**
     * Heap one volume's logging may hold at most: the buffered chunks, one record past them (up to a bucket, 8 MiB),
     * and the chunks {@link ChunkBuffers} keeps.
     */
    static final long BUFFER_BYTES_MAX = LOG_BUFFERED_BYTES_MAX + (8L << 20)
            + (long) ChunkBuffers.RETAINED_MAX * LogGroupWriter.CHUNK_BYTES_MAX;

    /** Where a group is. */
    enum State { IDLE, REPLAYING, LOGGING, PLACING, FINISHING }

    /** What the group needs of its writeback engine. */
    interface Engine {
        /** True while the knob says {@code journaled}. */
        boolean journaled();

        /** Keys in flight, from pass start until clean marking. */
        int keysInFlight();

        /** Keys whose cache read or backing write is in progress. */
        int keysInIo();

        /** True if the last sweep of the (restricted) index found no key to take, and none is buffered. */
        boolean nothingToTake();

        /**
         * The most dirty bytes a group may take now: unbounded at full speed; while writeback is paced, what the
         * pace writes in {@link #PACED_GROUP_NS}, so that a group ends (and its data turns clean) within seconds.
         */
        long groupBytesMax();

        /** Restricts passes to dirty data of epochs up to {@code lastEpoch}, or back to the volume's order (-1). */
        void restrictTo(long lastEpoch);

        /** A step failed: the error is shown, writeback backs off, held requests hear why. */
        void failed(String failure);

        /** Looks for passes to start (a step ended). */
        void pump();
    }

    private final EventLoop loop;
    private final Volume volume;
    private final BlockDevice backing;
    private final BackingLogRegion region;
    private final CleanMarker cleaner;
    private final WritebackCounters counters;
    private final Engine engine;
    private final ChunkBuffers buffers = new ChunkBuffers();
    private State state = State.IDLE;
    private boolean replayFirst;
    private long sequence;
    /** Groups end at this epoch at most after one overflowed the log (Long.MAX_VALUE: no cap). */
    private long capEpoch = Long.MAX_VALUE;
    private long lastEpoch;
    private LogGroupWriter writer;
    private long scanCursor;
    private boolean scanDone;
    private int readsInFlight;
    private long readBytesInFlight;
    private boolean overflowed;
    private boolean readFailed;
    /** Set when a run of the placed group failed: the group is abandoned once no run is in I/O. */
    private Consumer<List<DirtyKey>> abandon;
    private long groups;

    /** @param region the backing device's log, or null if it has none (then {@code journaled} is refused) */
    JournaledGroups(EventLoop loop, Volume volume, BackingLogRegion region, CleanMarker cleaner,
                    WritebackCounters counters, Engine engine) {
        this.loop = loop;
        this.volume = volume;
        this.backing = volume.backingDevice();
        this.region = region;
        this.cleaner = cleaner;
        this.counters = counters;
        this.engine = engine;
    }

    /** True if the backing device has a log. */
    boolean hasLog() {
        return region != null;
    }

    /** True while a group or a replay is under way: the ordering may not change now. */
    boolean busy() {
        return state != State.IDLE || replayFirst;
    }

    /** Groups committed so far. */
    long groups() {
        return groups;
    }

    State state() {
        return state;
    }

    /**
     * Asked before passes start: true while they must wait (a replay, a group being logged or finished); may start a
     * replay or a group. While a group is placed, passes run (restricted to it).
     */
    boolean holdsPasses() {
        switch (state) {
            case REPLAYING, LOGGING, FINISHING -> {
                return true;
            }
            case PLACING -> {
                return false;
            }
            default -> {
            }
        }
        if (region == null) {
            return false;
        }
        if (replayFirst) {
            replay();
            return true;
        }
        if (!engine.journaled()) {
            return false;
        }
        long last = groupEnd();
        if (last == DirtyEpochs.NONE) {
            return false; // fewer than two closed epochs: the oldest goes in place in order, no log
        }
        if (engine.keysInFlight() > 0) {
            return true; // passes of the oldest epoch end first; their settling pumps again
        }
        if (volume.backingWritesInFlight() > 0) {
            // A write around the cache (or a trim, write-zeroes) let through before these epochs closed is still on
            // its way to the backing device: the group's log, taken now, might hold older data for its range, and a
            // replay would undo it (fuzz seed 684). Once the group starts none can start: its epochs stay dirty, so
            // everything that goes to the backing device waits (VolumeContext.mayGoAround). The sample pumps again.
            return true;
        }
        startGroup(last);
        return true;
    }

    /**
     * The last epoch of the next group: the largest closed epoch whose data, with the older ones, should fit the
     * log, if that takes in two epochs or more; else {@link DirtyEpochs#NONE}.
     */
    private long groupEnd() {
        DirtyEpochs epochs = volume.index().epochs();
        long current = epochs.current();
        if (epochs.oldest() > capEpoch) {
            capEpoch = Long.MAX_VALUE; // the epochs the cap was for are clean (written in place one by one)
        }
        long bytesMax = engine.groupBytesMax();
        long bytes = 0;
        int taken = 0;
        long last = DirtyEpochs.NONE;
        for (Map.Entry<Long, Long> e : epochs.sectorsByEpoch().entrySet()) {
            if (e.getKey() >= current || e.getKey() > capEpoch) {
                break;
            }
            bytes += e.getValue() * BlockDevice.SECTOR_BYTES;
            // Records round up to 4 KiB each; an eighth more keeps most groups clear of an overflow.
            if (!region.layout().fits(0, bytes + bytes / 8) || (taken >= 1 && bytes > bytesMax)) {
                break;
            }
            last = e.getKey();
            taken++;
        }
        return taken >= 2 ? last : DirtyEpochs.NONE;
    }

    private void replay() {
        state = State.REPLAYING;
        LogReplay.run(backing, region, result -> {
            state = State.IDLE;
            if (result.failure() != null) {
                engine.failed("backing log replay failed: " + result.failure());
                return; // replayFirst stays: tried again after the backoff
            }
            replayFirst = false;
            engine.pump();
        });
    }

    private void startGroup(long last) {
        DirtyEpochs epochs = volume.index().epochs();
        state = State.LOGGING;
        lastEpoch = last;
        overflowed = false;
        readFailed = false;
        scanCursor = 0;
        scanDone = false;
        readsInFlight = 0;
        readBytesInFlight = 0;
        writer = new LogGroupWriter(backing, region, buffers, ++sequence, Math.max(0, epochs.oldest()));
        writer.whenBufferFreed(() -> loop.execute(this::logStep)); // scanning paused on buffered chunks goes on
        loop.execute(this::logStep);
    }

    /** One bounded step of logging: scans on from the cursor and starts cache reads into the log, a few at a time. */
    private void logStep() {
        if (state != State.LOGGING || writer == null) {
            return; // a late wake-up after the group was closed
        }
        DirtyEpochs epochs = volume.index().epochs();
        int room = readBytesInFlight >= LOG_READ_BYTES_MAX || writer.bufferedBytes() >= LOG_BUFFERED_BYTES_MAX ? 0
                : LOG_READS_MAX - readsInFlight;
        boolean stopScan = overflowed || readFailed;
        if (!scanDone && !stopScan && room > 0) {
            long next = volume.index().extents().scan(scanCursor, ExtentLocation::dirty, room, EXAMINED_PER_STEP,
                    (start, length, location, crc, crcOffset, crcLength) -> {
                        if (overflowed || readFailed || epochs.anyNewerThan(start, length, lastEpoch)) {
                            return;
                        }
                        LogGroupWriter.Slot slot = writer.reserve(start, length);
                        if (slot == null) {
                            overflowed = true;
                            return;
                        }
                        readsInFlight++;
                        long readBytes = (long) length * BlockDevice.SECTOR_BYTES;
                        readBytesInFlight += readBytes;
                        volume.extentReader().read(length, location, crc, crcOffset, crcLength, slot.buffer(),
                                (outcome, result) -> {
                                    readsInFlight--;
                                    readBytesInFlight -= readBytes;
                                    if (outcome != CacheExtentReader.Outcome.OK) {
                                        readFailed = true;
                                        writer.fail("cache read for the backing log failed: " + outcome + ": "
                                                + result.message());
                                    }
                                    writer.filled(slot);
                                    logStep();
                                });
                    });
            if (next == ExtentIndex.CURSOR_END) {
                scanDone = true;
            } else {
                scanCursor = next;
            }
        }
        if (overflowed) {
            writer.fail("the group of epochs up to " + lastEpoch + " does not fit the backing log");
        }
        stopScan = overflowed || readFailed;
        if ((scanDone || stopScan) && readsInFlight == 0) {
            LogGroupWriter closing = writer;
            writer = null;
            if (closing != null) {
                closing.commit(lastEpoch, this::committed);
            }
        } else if (!scanDone && !stopScan && readsInFlight < LOG_READS_MAX && readBytesInFlight < LOG_READ_BYTES_MAX
                && writer.bufferedBytes() < LOG_BUFFERED_BYTES_MAX) {
            loop.execute(this::logStep);
        }
    }

    private void committed(String failure) {
        if (failure != null) {
            state = State.IDLE;
            replayFirst = true; // a commit block may have landed although its write failed
            if (overflowed) {
                capEpoch = lastEpoch - 1; // a group one epoch shorter next time
                engine.pump();
            } else {
                engine.failed(failure);
            }
            return;
        }
        capEpoch = Long.MAX_VALUE;
        groups++;
        counters.logGroups.incrementAndGet();
        state = State.PLACING;
        cleaner.defer(true);
        engine.restrictTo(lastEpoch);
        engine.pump();
    }

    /**
     * Called after runs end and batches settle: once every dirty sector of the group waits for its clean marking and
     * nothing is in I/O, finishes the group (flush, retire, clean marks); an abandoned group ends here too.
     */
    void progress() {
        if (state != State.PLACING || engine.keysInIo() > 0) {
            return;
        }
        if (abandon != null) {
            Consumer<List<DirtyKey>> giveUp = abandon;
            abandon = null;
            state = State.IDLE;
            cleaner.defer(false);
            giveUp.accept(cleaner.dropPending());
            engine.restrictTo(-1);
            return;
        }
        // Done when every dirty sector of the group waits for its clean marking, or when what is left cannot be taken:
        // dirty data of the group's epochs over a range a written key holds can only be a write that landed after the
        // logging scan passed it, routed before the group's last FLUSH but completed after it, so not covered by it;
        // the group may end without it (it stays dirty, for the next one).
        if (cleaner.pendingSectors() < volume.index().epochs().sectorsUpTo(lastEpoch) && !engine.nothingToTake()) {
            return;
        }
        state = State.FINISHING;
        cleaner.closeGroup(done -> LogGroupWriter.retire(backing, region, done::accept));
    }

    /** The group's batch settled (its clean marking is done, or it failed and stays dirty). */
    void settled(String failure) {
        if (state != State.FINISHING) {
            return;
        }
        state = State.IDLE;
        engine.restrictTo(-1);
        if (failure != null) {
            replayFirst = true;
        }
    }

    /**
     * A run of the placed group failed, or writeback stops: the group cannot end as logged. Once no run is in I/O its
     * written keys go to {@code giveUp} (they stay dirty) and the log is replayed before anything else writes the
     * backing device; the engine replays it at the next open anyway.
     */
    void abandon(Consumer<List<DirtyKey>> giveUp) {
        if (state != State.PLACING) {
            return;
        }
        replayFirst = true;
        abandon = giveUp;
        progress();
    }

    /** True while no run may start for the group (it is being abandoned). */
    boolean abandoning() {
        return abandon != null;
    }

    /** True while logging or replaying I/O is in flight (shutdown waits for it). */
    boolean ioInFlight() {
        return state == State.LOGGING || state == State.REPLAYING;
    }
}
