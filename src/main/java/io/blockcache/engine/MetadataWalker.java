package io.blockcache.engine;

import io.blockcache.device.BlockDevice;
import io.blockcache.format.CacheSuperblock;
import io.blockcache.format.DecodeResult;
import io.blockcache.format.SuperblockPair;
import io.blockcache.journal.JournalRecovery;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The one walk over a cache device's metadata that both {@link CacheSet#open} ({@link CacheOpener}) and
 * {@code blockcache check} ({@link CacheInspector}) make, so that check can never call consistent a cache that
 * open refuses, or the reverse. Steps (docs/FORMAT.md §8): both superblock copies (read past
 * latent sector errors: an unreadable copy counts as invalid), the journal ring (read past latent sector
 * errors, see {@link JournalRecovery#recover(byte[], int, java.util.BitSet)}), the newest checkpoint's buckets.
 * It only reads. The checkpoint's chunks are decoded and verified by the caller, through one
 * {@link io.blockcache.journal.CheckpointCursor} (check at once, open in slices while it replays). What to do
 * with a failure is the caller's policy: open refuses, check reports and stops.
 *
 * <p>Thread rule: the device's loop thread; {@code done} runs there, exactly once.
 */
final class MetadataWalker {
    /**
     * What the walk found, as far as it got.
     *
     * @param pair the superblock pair, or null if neither copy was valid
     * @param journal the journal recovery, or null if the walk stopped before or at it
     * @param checkpointBuckets the contents of the newest checkpoint's buckets in CheckpointDone order (empty if
     *     there is none; not yet decoded or verified), or null if not reached
     * @param failure why the walk stopped early, or null if it got through
     */
    record Walk(SuperblockPair pair, JournalRecovery journal, List<byte[]> checkpointBuckets, String failure) {
        /** True if every step succeeded. */
        boolean ok() {
            return failure == null;
        }
    }

    private final BlockDevice cacheDevice;
    private final Consumer<Runnable> yielder;
    private final Consumer<Walk> done;
    private SuperblockPair pair;
    private JournalRecovery journal;

    private MetadataWalker(BlockDevice cacheDevice, Consumer<Runnable> yielder, Consumer<Walk> done) {
        this.cacheDevice = cacheDevice;
        this.yielder = yielder;
        this.done = done;
    }

    /** Walks {@code cacheDevice}'s metadata in one go (check); {@code done} gets what was found. */
    static void walk(BlockDevice cacheDevice, Consumer<Walk> done) {
        new MetadataWalker(cacheDevice, null, done).readSuperblocks();
    }

    /**
     * Walks {@code cacheDevice}'s metadata, decoding the journal ring in bounded steps
     * ({@link JournalRecovery.Steps}) with {@code yielder} (the loop's {@code execute}) between them, so that open
     * leaves the loop to other tasks while it decodes a full ring; {@code done} gets what was found.
     */
    static void walk(BlockDevice cacheDevice, Consumer<Runnable> yielder, Consumer<Walk> done) {
        new MetadataWalker(cacheDevice, yielder, done).readSuperblocks();
    }

    private void stop(String failure) {
        done.accept(new Walk(pair, journal, null, failure));
    }

    private void readSuperblocks() {
        DeviceBytes.readSalvaging(cacheDevice, 0, 2 * CacheSuperblock.BYTES, read -> {
            // An unreadable copy reads as zeroes, which decode as an invalid copy: the other one wins, and open's
            // repair rewrites the bad one (which clears a latent sector error).
            byte[] bytes = read.bytes();
            DecodeResult<SuperblockPair> decoded = SuperblockPair.readHead(bytes);
            if (!decoded.isOk()) {
                stop("cache device holds no valid blockcache superblock (is it formatted?): " + decoded.error());
                return;
            }
            pair = decoded.value();
            CacheSuperblock superblock = pair.chosen();
            if (cacheDevice.sizeBytes() < superblock.deviceBytesMin()) {
                stop("cache device is " + cacheDevice.sizeBytes() + " bytes but its superblock describes "
                        + superblock.deviceBytesMin() + " bytes (" + superblock.bucketCount() + " buckets of "
                        + superblock.bucketSizeBytes() + "): was it truncated?");
                return;
            }
            readJournal(superblock);
        });
    }

    private void readJournal(CacheSuperblock superblock) {
        int ringBytes = Math.multiplyExact(superblock.journalBuckets(), superblock.bucketSizeBytes());
        long ringStartBytes = superblock.bucketOffsetBytes(superblock.journalFirstBucket());
        DeviceBytes.readSalvaging(cacheDevice, ringStartBytes, ringBytes, read -> decodeJournal(superblock,
                new JournalRecovery.Steps(read.bytes(), superblock.bucketSizeBytes(), read.unreadableBlocks()),
                ringStartBytes));
    }

    /** Takes the journal recovery's steps: all at once for check, one per loop task for open. */
    private void decodeJournal(CacheSuperblock superblock, JournalRecovery.Steps steps, long ringStartBytes) {
        try {
            while (!steps.step()) {
                if (yielder != null) {
                    yielder.accept(() -> decodeJournal(superblock, steps, ringStartBytes));
                    return;
                }
            }
            journal = steps.result();
        } catch (JournalRecovery.CorruptJournalException e) {
            stop(e.getMessage() + " (ring byte 0 is cache byte " + ringStartBytes + ")");
            return;
        }
        readCheckpoint(superblock, 0, new ArrayList<>());
    }

    private void readCheckpoint(CacheSuperblock superblock, int index, List<byte[]> contents) {
        if (journal.checkpoint() == null || index == journal.checkpoint().buckets().size()) {
            done.accept(new Walk(pair, journal, contents, null));
            return;
        }
        int bucket = journal.checkpoint().buckets().get(index);
        if (bucket < 0 || bucket >= superblock.bucketCount()) {
            stop("checkpoint " + journal.checkpoint().checkpointStartSequence() + " names bucket " + bucket
                    + ", outside the cache's " + superblock.bucketCount() + " buckets");
            return;
        }
        DeviceBytes.read(cacheDevice, superblock.bucketOffsetBytes(bucket), superblock.bucketSizeBytes(), read -> {
            if (!read.isOk()) {
                stop("checkpoint bucket " + bucket + ": " + read.error());
                return;
            }
            contents.add(read.value());
            readCheckpoint(superblock, index + 1, contents);
        });
    }
}
