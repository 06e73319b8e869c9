package io.blockcache.journal;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import io.blockcache.format.CheckpointEncoder;
import io.blockcache.format.JournalRecord;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.LongUnaryOperator;

/**
 * Writes checkpoints in slices so that they never stall the loop (docs/FORMAT.md §6): each step encodes one
 * chunk (at most {@link #CHUNK_BYTES_MAX}) and submits it; the next step runs when that write completes.
 *
 * <p>Order of a checkpoint starting at journal sequence S:
 * <ol>
 *   <li>only for the checkpoint of a clean shutdown ({@link #startForShutdown}): flush the backing devices,
 *       because after a clean shutdown the checkpoint's clean extents are trusted, so their records must not
 *       outlive the backing data they copy. A running cache's checkpoints do not wait for the backing devices:
 *       an unclean open distrusts every clean extent (docs/FORMAT.md §7), and a failed backing device must not
 *       stop checkpoints, or the journal ring would fill and every volume would hang;</li>
 *   <li>write the chunks into metadata buckets, several per bucket, packed from offset 0;</li>
 *   <li>append a CheckpointDone record to the first journal entry not yet written and write it (every entry write
 *       flushes the cache device first, so the chunks are durable before the record that names them);</li>
 *   <li>then the journal before S and the previous checkpoint's buckets are free.</li>
 * </ol>
 * A checkpoint that fails (no bucket, an I/O error) reports the error; the previous checkpoint stays the valid
 * one.
 *
 * <p><b>Spare buckets.</b> A checkpoint that failed before its completion record keeps its buckets as spares, and
 * the next checkpoint writes into them first: nothing durable names them, so they need no generation bump, and a
 * checkpoint that fails again and again (ENOSPC on a full file system) takes no new bucket. Given back instead,
 * each would need a bump that the generation guard refuses until a checkpoint succeeds, and every attempt took a
 * fresh bucket (found 2026-12-07: every free bucket became metadata). Old checkpoint buckets that may not be
 * given back yet become spares too. Unused spares are given back after each durable checkpoint. A checkpoint whose
 * completion record failed gives its buckets back: the journal has failed for good, and that record may be durable.
 *
 * <p>Thread rule: the cache's loop thread.
 */
public final class CheckpointWriter {
    /** 256 KiB per slice: about 9000 extents, a few milliseconds of encoding at most. */
    public static final int CHUNK_BYTES_MAX = 256 * 1024;

    private final BlockDevice cacheDevice;
    private final JournalWriter journal;
    private final MetadataSpace space;
    private final List<CheckpointItems.VolumeExtents> volumes = new ArrayList<>();
    private final Consumer<IoCallback> flushBackings;
    private final int chunkBytesMax;
    private List<Integer> durableBuckets = List.of();
    /** Metadata buckets this writer owns that no durable checkpoint names: written first by the next checkpoint. */
    private final ArrayDeque<Integer> spareBuckets = new ArrayDeque<>();
    private List<IoCallback> waiters;
    private Run run;
    private long checkpointsWritten;
    /**
     * The array every chunk is encoded into, made at the first checkpoint and kept: one run at a time, and a chunk
     * is encoded only once the previous chunk's write completed.
     */
    private byte[] chunk;

    /**
     * @param flushBackings flushes every backing device and calls back once (used by the shutdown checkpoint)
     * @param previousBuckets the buckets of the durable checkpoint found at recovery (freed by the next one)
     */
    public CheckpointWriter(BlockDevice cacheDevice, JournalWriter journal, MetadataSpace space,
                            Consumer<IoCallback> flushBackings, List<Integer> previousBuckets) {
        this.cacheDevice = cacheDevice;
        this.journal = journal;
        this.space = space;
        this.flushBackings = flushBackings;
        this.durableBuckets = List.copyOf(previousBuckets);
        this.chunkBytesMax = Math.min(CHUNK_BYTES_MAX, space.bucketSizeBytes());
    }

    /**
     * Adds a volume's index to every later checkpoint.
     *
     * @param epochOf the epoch to record with the dirty extent that starts at a sector (docs/FORMAT.md §6, type 3
     *     runs), or 0 for none
     */
    public void addVolume(int volumeId, io.blockcache.index.ExtentIndex index, LongUnaryOperator epochOf) {
        volumes.add(new CheckpointItems.VolumeExtents(volumeId, index, epochOf));
    }

    /**
     * Leaves volume {@code volumeId} out of every checkpoint started from now on (a volume being detached: its extents
     * are gone from the index, and the superblock that no longer names it must find no run of it).
     */
    public void removeVolume(int volumeId) {
        volumes.removeIf(volume -> volume.volumeId() == volumeId);
    }

    /**
     * Starts a checkpoint that begins after this call: waits for one already running (it began before, and may hold
     * what the caller just changed), then starts a fresh one; {@code done} runs when that one is durable or failed.
     */
    public void startAfterNow(IoCallback done) {
        if (run != null) {
            waiters.add(previous -> startAfterNow(done));
            return;
        }
        start(done);
    }

    /** Extents the indexes hold now, stale ones included: at most what the next checkpoint writes. */
    public long extentCount() {
        long extents = 0;
        for (int i = 0; i < volumes.size(); i++) { // indexed: asked at every bucket allocation
            extents += volumes.get(i).index().extentCount();
        }
        return extents;
    }

    /** True while a checkpoint is being written. */
    public boolean running() {
        return run != null;
    }

    /** Checkpoints completed since start. */
    public long checkpointsWritten() {
        return checkpointsWritten;
    }

    /** Metadata buckets held for the next checkpoint that no durable checkpoint names. */
    public int spareBuckets() {
        return spareBuckets.size();
    }

    /** The buckets of the newest durable checkpoint. */
    public List<Integer> durableBuckets() {
        return durableBuckets;
    }

    /** Starts a checkpoint, or joins the one running; {@code done} runs when it is durable or failed. */
    public void start(IoCallback done) {
        if (journal.appending()) {
            throw new IllegalStateException("a checkpoint may not start inside a journal append: the change being"
                    + " appended is not applied yet, so the checkpoint would miss it");
        }
        if (run != null) {
            waiters.add(done);
            return;
        }
        waiters = new ArrayList<>();
        waiters.add(done);
        run = new Run(journal.checkpointStartSequence());
        run.nextChunk();
    }

    /**
     * The checkpoint of a clean shutdown, once nothing else changes the cache: waits for a checkpoint already
     * running (whose early chunks may predate later changes: clean extents are not journaled, docs/FORMAT.md
     * §7 rule 7, so only a checkpoint begun after the last front-end change records them right), flushes the
     * backing devices (the clean extents it records will be trusted), then writes a fresh checkpoint.
     */
    public void startForShutdown(IoCallback done) {
        if (run != null) {
            waiters.add(previous -> startForShutdown(done));
            return;
        }
        flushBackings.accept(result -> {
            if (!result.ok()) {
                done.complete(IoResult.error(IoStatus.IO_ERROR, "checkpoint: backing flush failed: "
                        + result.message()));
                return;
            }
            start(done);
        });
    }

    private byte[] chunkArray() {
        if (chunk == null) {
            chunk = new byte[chunkBytesMax];
        }
        return chunk;
    }

    private void finish(IoResult result) {
        run = null;
        List<IoCallback> toCall = waiters;
        waiters = null;
        for (IoCallback waiter : toCall) {
            waiter.complete(result);
        }
    }

    /** Gives {@code bucket} back, or keeps it as a spare while its generation may not advance. */
    private void releaseOrKeep(int bucket) {
        if (!space.releaseMetadataBucket(bucket)) {
            spareBuckets.addLast(bucket);
        }
    }

    /** The state of one checkpoint being written. */
    private final class Run {
        final long startSequence;
        final CheckpointEncoder encoder;
        final List<Integer> buckets = new ArrayList<>();
        int bucket = -1;
        int offsetInBucketBytes;

        Run(long startSequence) {
            this.startSequence = startSequence;
            // A copy: a volume detached while this checkpoint runs still has its (empty) run here.
            this.encoder = new CheckpointEncoder(startSequence, chunkBytesMax,
                    new CheckpointItems(space, List.copyOf(volumes)));
        }

        void nextChunk() {
            if (!encoder.hasNext()) {
                commit();
                return;
            }
            byte[] chunk = chunkArray();
            int chunkBytes = encoder.nextChunk(chunk);
            if (bucket < 0 || offsetInBucketBytes + chunkBytes > space.bucketSizeBytes()) {
                Integer spare = spareBuckets.pollFirst();
                bucket = spare != null ? spare : space.allocateMetadataBucket();
                if (bucket < 0) {
                    failBeforeCommit(IoResult.error(IoStatus.NO_SPACE, "checkpoint: no free bucket for checkpoint"
                            + " data (" + buckets.size() + " taken by this checkpoint, " + durableBuckets.size()
                            + " by the durable one)"));
                    return;
                }
                buckets.add(bucket);
                offsetInBucketBytes = 0;
            }
            long offset = space.bucketByteOffset(bucket) + offsetInBucketBytes;
            offsetInBucketBytes += chunkBytes;
            cacheDevice.write(offset, ByteBuffer.wrap(chunk, 0, chunkBytes), false, result -> {
                if (!result.ok()) {
                    failBeforeCommit(IoResult.error(result.status(), "checkpoint: chunk write failed: "
                            + result.message()));
                    return;
                }
                nextChunk();
            });
        }

        /** Nothing names this run's buckets: they stay this writer's, for the next checkpoint to write into. */
        void failBeforeCommit(IoResult error) {
            spareBuckets.addAll(buckets);
            finish(error);
        }

        void commit() {
            journal.appendCheckpointDone(new JournalRecord.CheckpointDone(startSequence, buckets,
                    encoder.extentCount(), encoder.checkpointCrc()), result -> {
                if (!result.ok()) {
                    for (int taken : buckets) {
                        // Never a spare: the failed record may be durable and name it. One the guard refuses (false)
                        // stays METADATA, unused, until the restart that a failed journal needs anyway.
                        space.releaseMetadataBucket(taken);
                    }
                    finish(result);
                    return;
                }
                journal.checkpointDurable(startSequence);
                space.checkpointDurable();
                int unused = spareBuckets.size();
                for (int i = 0; i < unused; i++) {
                    releaseOrKeep(spareBuckets.pollFirst());
                }
                for (int old : durableBuckets) {
                    releaseOrKeep(old);
                }
                durableBuckets = List.copyOf(buckets);
                checkpointsWritten++;
                finish(IoResult.OK);
            });
        }
    }
}
