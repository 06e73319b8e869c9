package io.blockcache.writeback;

import io.blockcache.volume.CacheExtentReader;
import io.blockcache.volume.Volume;
import java.util.List;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * The I/O of writeback passes: cuts a pass's keys into runs, reads each run from the cache into one buffer and
 * writes it to the backing device once every read is in. Under the modern policy a run is written as soon as it
 * is read; under the classic policy runs are written strictly in sequence order, each after the previous one
 * completed (bcache's in-order writeback), and runs read under one policy finish cleanly under the other.
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

    private final Volume volume;
    private final WritebackCounters counters;
    private final Supplier<WritebackSettings> settings;
    private final RunEnd runEnd;
    private final Runnable pump;
    private final TreeMap<Long, WritebackRun> classicReady = new TreeMap<>();
    private long nextSequence;
    private long classicNextSequence;
    private boolean classicWriteInFlight;

    /**
     * @param settings the settings in force now (they change live)
     * @param pump starts more passes; called after a run ended
     */
    PassIo(Volume volume, WritebackCounters counters, Supplier<WritebackSettings> settings, RunEnd runEnd,
           Runnable pump) {
        this.volume = volume;
        this.counters = counters;
        this.settings = settings;
        this.runEnd = runEnd;
        this.pump = pump;
    }

    /** Plans the keys of one pass (in issue order) into runs and starts their cache reads. */
    void start(List<DirtyKey> keys) {
        List<WritebackRun> runs = WritebackRun.plan(keys, settings.get().backingIoSectorsMax(), nextSequence);
        nextSequence += runs.size();
        for (WritebackRun run : runs) {
            read(run);
        }
    }

    private void read(WritebackRun run) {
        // Take the place in the backing write line before reading, so no front-end write can overtake it.
        run.slot = volume.reserveBackingWrite(run.startSector, run.lengthSectors);
        run.allocate();
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
    }

    private void readsDone(WritebackRun run) {
        if (settings.get().policy() == WritebackPolicy.CLASSIC || !classicReady.isEmpty() || classicWriteInFlight) {
            classicReady.put(run.sequence, run);
            issueInSequence();
        } else {
            if (run.failure != null) {
                failed(run);
            } else {
                write(run);
            }
            classicNextSequence = Math.max(classicNextSequence, run.sequence + 1);
        }
    }

    /** Classic: writes go out strictly in sequence order, each after the previous one completed. */
    private void issueInSequence() {
        while (!classicWriteInFlight && !classicReady.isEmpty()) {
            if (classicReady.firstKey() < classicNextSequence) {
                classicNextSequence = classicReady.firstKey(); // read under modern, finished under classic
            }
            WritebackRun next = classicReady.get(classicNextSequence);
            if (next == null) {
                if (settings.get().policy() == WritebackPolicy.CLASSIC) {
                    return;
                }
                classicNextSequence = classicReady.firstKey(); // switched to modern meanwhile: no more waiting
                continue;
            }
            classicReady.remove(classicNextSequence);
            classicNextSequence++;
            if (next.failure != null) {
                failed(next);
            } else {
                classicWriteInFlight = true;
                write(next);
            }
        }
    }

    private void write(WritebackRun run) {
        counters.backingWrites.incrementAndGet();
        counters.backingWriteSectors.addAndGet(run.lengthSectors);
        WritebackCounters.raisePeak(counters.backingWritesInFlightPeak,
                counters.backingWritesInFlight.incrementAndGet());
        run.slot.write(run.data, result -> {
            counters.backingWritesInFlight.decrementAndGet();
            run.data = null;
            classicWriteInFlight = false;
            if (!result.ok()) {
                counters.writeErrors.incrementAndGet();
            }
            runEnd.ended(run.keys, result.ok() ? null : "backing write failed: " + result.message());
            issueInSequence();
            pump.run();
        });
    }

    /** A run whose cache reads failed: its place in the backing write line is given up, its keys stay dirty. */
    private void failed(WritebackRun run) {
        run.slot.cancel();
        run.data = null;
        runEnd.ended(run.keys, "cache read failed: " + run.failure);
        pump.run();
    }
}
