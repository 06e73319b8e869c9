package io.blockcache.engine;

import io.blockcache.cache.CacheSpace;
import io.blockcache.format.CheckpointItem;
import io.blockcache.format.JournalEntry;
import io.blockcache.format.JournalRecord;
import io.blockcache.index.ExtentIndex;
import io.blockcache.index.ExtentLocation;
import io.blockcache.journal.CheckpointCursor;
import io.blockcache.journal.JournalRecovery;
import io.blockcache.loop.EventLoop;
import java.util.List;
import java.util.function.Consumer;

/**
 * Replays a checkpoint and the journal into fresh indexes as bounded duty cycles on the loop (Agrona's habit): each
 * slice does at most {@link #SLICE_UNITS_MAX} work units and then yields with {@code loop.execute}, so that a
 * recovery of millions of extents never holds the loop for long and the admin API answers while it runs. The
 * steps are those of docs/FORMAT.md §8 step 5, in order: the checkpoint chunk by chunk
 * ({@link CheckpointCursor}; the first chunk decoded on the loop, each later one ahead of it off the loop by
 * {@link ChunkPrefetch}: a chunk's items are applied once it is decoded, the digest and extent count are checked
 * when the last chunk was read, and nothing is written before that), the journal record by record, after an unclean
 * stop the clean extents dropped (§7 rule 10), then stale keys dropped and every bucket recounted.
 *
 * <p>Nothing here writes: a failure (a corrupt checkpoint, metadata that breaks an index invariant) ends the
 * replay with a message and leaves only memory to collect. Thread rule: the loop's thread (chunk decodes excepted).
 */
final class RecoveryReplay {
    /**
     * The most work units a slice does: an extent or record applied, or an extent visited by a sweep (checkpoint
     * chunks are decoded off the loop, {@link ChunkPrefetch}). Slices of 4096 took 0.2–0.6 ms on average in
     * {@code bench recovery} (docs/BENCHMARKS.md "Recovery"), far below the 10 ms a slice may hold the loop, and
     * 4096 is a whole number of 128-extent leaves for the sweeps. How many a slice does below that is the
     * {@link SliceSizer}'s choice, from what the slices before it cost.
     */
    static final int SLICE_UNITS_MAX = 4096;

    private final EventLoop loop;
    private final RecoveryProgress progress;
    private final Replayer replayer;
    /** The checkpoint's chunks, decoded one ahead off the loop; null if there is no checkpoint. */
    private final ChunkPrefetch checkpoint;
    private final List<JournalEntry> entries;
    private final boolean distrustClean;
    private final List<ExtentIndex> indexes;
    private final CacheSpace space;
    private final Consumer<String> done;
    private final Replayer.Ranges ranges = new Replayer.Ranges(SLICE_UNITS_MAX);
    private final SliceSizer sizer = new SliceSizer(SLICE_UNITS_MAX);

    private List<CheckpointItem> chunk = List.of();
    /** The last slice found the next checkpoint chunk still being decoded: the next slice waits for it. */
    private boolean waitingForChunk;
    private int itemIndex;
    private int withinItem;
    private int entryIndex;
    private int recordIndex;
    private int volumeIndex;
    private long sweepCursor;
    /** {@link #countInserts}' place: entry and record, the inserts counted so far, and the checkpoint's count. */
    private int countEntry;
    private int countRecord;
    private long journalInserts;
    private long checkpointExtents;

    /**
     * @param checkpoint the checkpoint to apply, or null if there is none
     * @param distrustClean drop every clean extent after replay (the last stop was not clean)
     * @param done gets null once everything was replayed, or why recovery must refuse
     */
    RecoveryReplay(EventLoop loop, RecoveryProgress progress, Replayer replayer, CheckpointCursor checkpoint,
                   List<JournalEntry> entries, boolean distrustClean, List<ExtentIndex> indexes, CacheSpace space,
                   Consumer<String> done) {
        this.loop = loop;
        this.progress = progress;
        this.replayer = replayer;
        this.checkpoint = checkpoint == null ? null : new ChunkPrefetch(loop, checkpoint);
        this.entries = entries;
        this.distrustClean = distrustClean;
        this.indexes = indexes;
        this.space = space;
        this.done = done;
    }

    /** Starts with the checkpoint; later slices run as loop tasks. */
    void start(long checkpointExtents) {
        this.checkpointExtents = checkpointExtents;
        countInserts();
    }

    /**
     * Counts the journal's extent inserts for the progress total, at most {@link #SLICE_UNITS_MAX} records per loop
     * task, then starts the replay. After a crash the journal tail can hold millions of records: counted in one task,
     * they held the loop 13–21 ms ({@code bench recovery}, 10 M extents, JFR execution samples; docs/BENCHMARKS.md
     * "Recovery").
     */
    private void countInserts() {
        int units = 0;
        while (countEntry < entries.size() && units < SLICE_UNITS_MAX) {
            List<JournalRecord> records = entries.get(countEntry).records();
            int end = Math.min(records.size(), countRecord + SLICE_UNITS_MAX - units);
            for (int i = countRecord; i < end; i++) {
                if (records.get(i) instanceof JournalRecord.ExtentInsert) {
                    journalInserts++;
                }
            }
            units += end - countRecord;
            if (end == records.size()) {
                countEntry++;
                countRecord = 0;
            } else {
                countRecord = end;
            }
            units++; // each entry costs a unit too: a tail of many empty entries is bounded per task as well
        }
        if (countEntry < entries.size()) {
            loop.execute(this::countInserts);
            return;
        }
        progress.expectExtents(checkpointExtents + journalInserts);
        progress.enter(RecoveryProgress.Phase.CHECKPOINT, checkpointExtents, loop.nowNs());
        loop.execute(this::slice);
    }

    private void slice() {
        long startNs = loop.nowNs();
        int units;
        try {
            units = switch (progress.phase()) {
                case CHECKPOINT -> checkpointSlice();
                case JOURNAL -> journalSlice();
                case DROPPING_CLEAN -> dropCleanSlice();
                case RECOUNTING -> recountSlice();
                default -> throw new IllegalStateException("replay slice in phase " + progress.phase());
            };
        } catch (JournalRecovery.CorruptJournalException e) {
            done.accept(e.getMessage());
            return;
        } catch (IllegalStateException | IllegalArgumentException e) {
            // Metadata that breaks an invariant: corruption the checksums did not catch. Fail-stop.
            done.accept("recovery failed while replaying metadata: " + e.getMessage());
            return;
        }
        long elapsedNs = loop.nowNs() - startNs;
        progress.slice(units, elapsedNs);
        sizer.measured(units, elapsedNs);
        if (progress.phase() == RecoveryProgress.Phase.WIRING) {
            done.accept(null);
        } else if (waitingForChunk) {
            waitingForChunk = false;
            checkpoint.whenReady(() -> loop.execute(this::slice));
        } else {
            loop.execute(this::slice);
        }
    }

    /**
     * Applies up to a slice of the current chunk's items, taking the next decoded chunk when this one is done; if it
     * is not decoded yet, the slice ends and the next runs once it is ({@link #waitingForChunk}).
     */
    private int checkpointSlice() throws JournalRecovery.CorruptJournalException {
        if (itemIndex == chunk.size()) {
            boolean first = checkpoint != null && !checkpoint.started();
            if (!first && checkpoint != null && !checkpoint.ready()) {
                waitingForChunk = true;
                return 0;
            }
            List<CheckpointItem> next = checkpoint == null ? null : first ? checkpoint.takeFirst() : checkpoint.take();
            if (next == null) {
                progress.enter(RecoveryProgress.Phase.JOURNAL, journalRecords(), loop.nowNs());
                sizer.phaseEntered();
                return 0;
            }
            chunk = next;
            itemIndex = 0;
            withinItem = 0;
            if (first) {
                return 0; // the first chunk was decoded here, on the loop: that was this slice's work
            }
        }
        int budget = sizer.units();
        int units = 0;
        while (units < budget && itemIndex < chunk.size()) {
            CheckpointItem item = chunk.get(itemIndex);
            int size = switch (item) {
                case CheckpointItem.GenerationSlice slice -> slice.generations().size();
                case CheckpointItem.ExtentRun run -> run.extents().size();
                case CheckpointItem.BlockCrcRun run -> 1; // one copy of at most a bucket's CRCs
                case CheckpointItem.CoverageRun run -> 1; // at most 2048 buckets' coverage
            };
            int to = Math.min(size, withinItem + budget - units);
            switch (item) {
                case CheckpointItem.GenerationSlice slice -> replayer.applyGenerations(slice, withinItem, to);
                case CheckpointItem.ExtentRun run -> {
                    for (int i = withinItem; i < to; i++) {
                        replayer.insert(run.extents().get(i));
                    }
                    progress.extentsReplayed(to - withinItem);
                }
                case CheckpointItem.BlockCrcRun run -> replayer.blockCrcs(run.crcs());
                case CheckpointItem.CoverageRun run -> replayer.coverage(run);
            }
            units += to - withinItem;
            withinItem = to;
            if (withinItem == size) {
                itemIndex++;
                withinItem = 0;
            }
        }
        return units;
    }

    private long journalRecords() {
        long records = 0;
        for (JournalEntry entry : entries) {
            records += entry.records().size();
        }
        return records;
    }

    private int journalSlice() {
        int budget = sizer.units();
        int units = 0;
        while (units < budget && entryIndex < entries.size()) {
            List<JournalRecord> records = entries.get(entryIndex).records();
            int to = Math.min(records.size(), recordIndex + budget - units);
            int inserts = 0;
            for (int i = recordIndex; i < to; i++) {
                JournalRecord record = records.get(i);
                replayer.apply(record);
                inserts += record instanceof JournalRecord.ExtentInsert ? 1 : 0;
            }
            progress.extentsReplayed(inserts);
            units += to - recordIndex;
            recordIndex = to;
            if (recordIndex == records.size()) {
                entryIndex++;
                recordIndex = 0;
            }
        }
        if (entryIndex == entries.size()) {
            enterSweep(distrustClean ? RecoveryProgress.Phase.DROPPING_CLEAN : RecoveryProgress.Phase.RECOUNTING);
        }
        return units;
    }

    private void enterSweep(RecoveryProgress.Phase phase) {
        long extents = 0;
        for (ExtentIndex index : indexes) {
            extents += index.extentCount();
        }
        progress.enter(phase, extents, loop.nowNs());
        sizer.phaseEntered();
        volumeIndex = 0;
        sweepCursor = 0;
    }

    private int dropCleanSlice() {
        ranges.visited = 0;
        if (volumeIndex < indexes.size()) {
            sweepCursor = Replayer.dropCleanInNodes(indexes.get(volumeIndex),
                    space.allocator().cleanCoverage(), sweepCursor, sweepLeaves(), ranges);
            nextVolumeAtEnd();
        }
        if (volumeIndex == indexes.size()) {
            enterSweep(RecoveryProgress.Phase.RECOUNTING);
        }
        return (int) ranges.visited;
    }

    /**
     * Drops keys made stale by generation bumps and counts every live extent into its bucket: one walk, stale
     * keys collected and removed after it (the recount ignores them: their generation is not current).
     */
    private int recountSlice() {
        ranges.size = 0;
        ranges.visited = 0;
        if (volumeIndex < indexes.size()) {
            ExtentIndex index = indexes.get(volumeIndex);
            sweepCursor = index.forEachInNodes(sweepCursor, sweepLeaves(), (start, length, location, crc, at, span) -> {
                ranges.visited++;
                int bucket = ExtentLocation.bucket(location);
                if (space.currentGeneration(bucket) != ExtentLocation.generation(location)) {
                    ranges.add(start, length);
                } else {
                    space.recount(bucket, ExtentLocation.generation(location), length,
                            ExtentLocation.dirty(location));
                }
            });
            for (int i = 0; i < ranges.size; i++) {
                index.remove(ranges.starts[i], ranges.lengths[i]);
            }
            nextVolumeAtEnd();
        }
        if (volumeIndex == indexes.size()) {
            progress.enter(RecoveryProgress.Phase.WIRING, 0, loop.nowNs());
        }
        return (int) ranges.visited;
    }

    /** Leaves for a sweep slice: each holds at most {@link ExtentIndex#LEAF_CAPACITY_DEFAULT} extents. */
    private int sweepLeaves() {
        return Math.max(1, sizer.units() / ExtentIndex.LEAF_CAPACITY_DEFAULT);
    }

    private void nextVolumeAtEnd() {
        if (sweepCursor == ExtentIndex.CURSOR_END) {
            volumeIndex++;
            sweepCursor = 0;
        }
    }
}
