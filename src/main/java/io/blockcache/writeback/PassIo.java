package io.blockcache.writeback;

import io.blockcache.loop.EventLoop;
import io.blockcache.volume.CacheExtentReader;
import io.blockcache.volume.Volume;
import java.util.List;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * The I/O of writeback passes: cuts a pass's keys into runs (modern merges LBA-adjacent keys; classic makes one
 * run per key), reads each run from the cache into one buffer and writes it to the backing device once every read
 * is in. Under the modern policy a run is written as soon as it is read; under the classic policy runs are
 * <em>issued</em> strictly in sequence order, each as soon as it is read and the previous one was issued (not
 * completed), and runs read under one policy finish cleanly under the other.
 *
 * <p>Classic mirrors bcache before its 2025 idle-writeback patch (linux-bcache mailing list), Linux
 * {@code drivers/md/bcache/writeback.c}:
 * <ul>
 *   <li>{@code read_dirty()} numbers every key it reads with {@code io->sequence = sequence++}, the counter living
 *       across passes (it is reset only when {@code read_dirty()} starts on a refilled keybuf), gives every key its
 *       own {@code dirty_io} and so its own backing write (no merging), and takes one slot
 *       of {@code dc->in_flight} (a semaphore of 64) per key; {@code write_dirty_finish()} gives it back after the
 *       write completed. Here: the sequence is {@code nextSequence}, the 64 is {@code io_in_flight_max}.</li>
 *   <li>{@code write_dirty()} waits on {@code dc->writeback_ordering_wait} while
 *       {@code writeback_sequence_next != io->sequence}; on its turn it calls {@code closure_bio_submit()} and
 *       right after it {@code atomic_set(&dc->writeback_sequence_next, next_sequence)} and
 *       {@code closure_wake_up()}. So the next write may go out as soon as this one was <em>submitted</em>: several
 *       classic writes can be in flight at once (the code's comment "wait for a write to complete" says more than
 *       the code does). A key whose read failed is not written but still advances the sequence. Here:
 *       {@link #issueReadPrefix}.</li>
 * </ul>
 * Not modelled: the CPU and scheduling cost of that check-wait-woken loop on a workqueue, which the 2025 patch
 * blames for the queue depth of 2.5 it measured on real bcache (in simulated time a wake-up is free); and the
 * {@code closure_sync()} at the end of {@code read_dirty()}, which lets every writeback I/O finish before the keybuf
 * is refilled (our scanner refills continuously, under both policies).
 *
 * <p>What happens to the keys afterwards (clean marking, giving up, backoff) is the engine's: it hears of every
 * run exactly once through {@link RunEnd}, and is asked to {@code pump} when capacity may have come free.
 *
 * <p>Thread rule: the loop thread.
 */
final class PassIo {
    /** Told once per run when its I/O is over. */
    interface RunEnd {
        /** The run's keys left I/O: {@code failure} null if the backing write succeeded, else why not. */
        void ended(List<DirtyKey> keys, String failure);
    }

    private final EventLoop loop;
    private final Volume volume;
    private final WritebackCounters counters;
    private final Supplier<WritebackSettings> settings;
    private final RunEnd runEnd;
    private final Runnable pump;
    // Runs started and not yet issued (reading, or read and waiting for an earlier run), by sequence: bounded by
    // the keys in flight (io_in_flight_max).
    private final TreeMap<Long, WritebackRun> unissued = new TreeMap<>();
    private final RunBuffers buffers = new RunBuffers();
    private long nextSequence;

    /**
     * @param settings the settings in force now (they change live)
     * @param pump starts more passes; called after a run ended
     */
    PassIo(EventLoop loop, Volume volume, WritebackCounters counters, Supplier<WritebackSettings> settings,
           RunEnd runEnd, Runnable pump) {
        this.loop = loop;
        this.volume = volume;
        this.counters = counters;
        this.settings = settings;
        this.runEnd = runEnd;
        this.pump = pump;
    }

    /**
     * Plans the keys of one pass (in issue order) into runs and starts their cache reads. Classic writes each key
     * on its own, as bcache's read_dirty() gives every key its own dirty_io and write_dirty() its own bio.
     */
    void start(List<DirtyKey> keys) {
        WritebackSettings now = settings.get();
        List<WritebackRun> runs = now.policy() == WritebackPolicy.CLASSIC ? WritebackRun.onePerKey(keys, nextSequence)
                : WritebackRun.plan(keys, now.backingIoSectorsMax(), nextSequence);
        nextSequence += runs.size();
        begin(runs, null);
    }

    /**
     * Starts one chunk's runs ({@link ChunkPlanner}); {@code chunkEnded} runs once every run of it has ended. Chunk
     * runs are modern runs: each is written as soon as it is read (classic has no chunk path).
     */
    void startChunk(ChunkPlanner.Plan plan, Runnable chunkEnded) {
        List<WritebackRun> runs = WritebackRun.chunk(plan, nextSequence);
        nextSequence += runs.size();
        begin(runs, chunkEnded);
    }

    /**
     * Puts one pass's runs in line and starts their cache reads; when the last of them ended, counts the pass's
     * duration (loop time from here to the end of its last backing write) and runs {@code passEnded} (may be null).
     */
    private void begin(List<WritebackRun> runs, Runnable passEnded) {
        long startNs = loop.nowNs();
        int[] runsLeft = {runs.size()};
        for (WritebackRun run : runs) {
            run.onEnd = () -> {
                if (--runsLeft[0] == 0) {
                    counters.passEnded(loop.nowNs() - startNs);
                    if (passEnded != null) {
                        passEnded.run();
                    }
                }
            };
            unissued.put(run.sequence, run); // in line before any read can complete
        }
        for (WritebackRun run : runs) {
            read(run);
        }
    }

    private void read(WritebackRun run) {
        // Take the place in the backing write line before reading, so no front-end write can overtake it.
        run.slot = volume.reserveBackingWrite(run.startSector, run.lengthSectors);
        run.allocate(buffers);
        for (DirtyKey key : run.keys) {
            counters.cacheReads.incrementAndGet();
            volume.extentReader().read(key.lengthSectors(), key.location(), key.crc32c(),
                    key.crcOffsetInBucketSectors(), key.crcLengthSectors(), run.sliceFor(key), (outcome, result) -> {
                        if (outcome != CacheExtentReader.Outcome.OK && run.failure == null) {
                            (outcome == CacheExtentReader.Outcome.CHECKSUM_MISMATCH
                                    ? counters.checksumErrors : counters.readErrors).incrementAndGet();
                            run.failure = outcome + ": " + result.message();
                        }
                        if (--run.readsPending == 0) {
                            readsDone(run);
                        }
                    });
        }
        for (ChunkPlanner.Fill fill : run.fills) {
            counters.chunkFillSectors.addAndGet(fill.lengthSectors());
            volume.extentReader().read(fill.lengthSectors(), fill.location(), fill.crc32c(),
                    fill.crcOffsetInBucketSectors(), fill.crcLengthSectors(),
                    run.sliceFor(fill.startSector(), fill.lengthSectors()), (outcome, result) -> {
                        if (outcome == CacheExtentReader.Outcome.OK) {
                            fillRead(run);
                            return;
                        }
                        (outcome == CacheExtentReader.Outcome.CHECKSUM_MISMATCH
                                ? counters.checksumErrors : counters.readErrors).incrementAndGet();
                        fillFromBacking(run, fill, outcome + ": " + result.message());
                    });
        }
    }

    /**
     * A clean fill that the cache could not give (its CRC failed, or the read did) is read from the backing device:
     * a clean copy equals what the backing device holds (docs/ARCHITECTURE.md §5 item 6), as a front-end read of it
     * falls back to the backing device too. Failing the chunk instead retried it with the same bad fill for ever, and
     * under epoch ordering held every later epoch behind it.
     */
    private void fillFromBacking(WritebackRun run, ChunkPlanner.Fill fill, String cacheFailure) {
        counters.chunkFillsFromBacking.incrementAndGet();
        // The failed cache read may have moved the slice's position: hand the device a fresh one.
        volume.backingDevice().read(volume.backingOffsetBytes(fill.startSector()),
                run.sliceFor(fill.startSector(), fill.lengthSectors()), read -> {
                    if (!read.ok() && run.failure == null) {
                        run.failure = "chunk fill " + cacheFailure + "; from the backing device: " + read.message();
                    }
                    fillRead(run);
                });
    }

    private void fillRead(WritebackRun run) {
        if (--run.readsPending == 0) {
            readsDone(run);
        }
    }

    private void readsDone(WritebackRun run) {
        if (settings.get().policy() == WritebackPolicy.MODERN) {
            unissued.remove(run.sequence);
            issue(run);
        }
        issueReadPrefix();
    }

    /**
     * Classic: writes are issued strictly in sequence order, each as soon as it is read and every run before it was
     * issued (bcache's write_dirty() advances writeback_sequence_next right after closure_bio_submit()), so every
     * read run at the head of the line goes out now; completion is not waited for. Runs read under modern were
     * issued at once and left the line, so a policy switch never leaves classic waiting for a run already written;
     * runs held under classic are let go by the same loop when the run they wait for is read, whatever the policy.
     */
    private void issueReadPrefix() {
        while (!unissued.isEmpty() && unissued.firstEntry().getValue().readsPending == 0) {
            issue(unissued.pollFirstEntry().getValue());
        }
    }

    private void issue(WritebackRun run) {
        if (run.failure != null) {
            failed(run); // bcache: a key whose read failed is not written, and the sequence still advances
        } else {
            write(run);
        }
    }

    private void write(WritebackRun run) {
        counters.backingWrites.incrementAndGet();
        counters.backingWriteSectors.addAndGet(run.lengthSectors);
        WritebackCounters.raisePeak(counters.backingWritesInFlightPeak,
                counters.backingWritesInFlight.incrementAndGet());
        run.slot.write(run.data, run.fua, result -> {
            counters.backingWritesInFlight.decrementAndGet();
            run.release(buffers);
            if (!result.ok()) {
                counters.writeErrors.incrementAndGet();
            }
            runEnd.ended(run.keys, result.ok() ? null : "backing write failed: " + result.message());
            ended(run);
            pump.run();
        });
    }

    /** A run whose cache reads failed: its place in the backing write line is given up, its keys stay dirty. */
    private void failed(WritebackRun run) {
        run.slot.cancel();
        run.release(buffers);
        runEnd.ended(run.keys, "cache read failed: " + run.failure);
        ended(run);
        pump.run();
    }

    private static void ended(WritebackRun run) {
        if (run.onEnd != null) {
            run.onEnd.run();
        }
    }
}
