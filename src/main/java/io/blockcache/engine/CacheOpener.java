package io.blockcache.engine;

import io.blockcache.device.BlockDevice;
import io.blockcache.format.AttachCheck;
import io.blockcache.format.AttachedBacking;
import io.blockcache.format.BackingHeader;
import io.blockcache.format.CacheSuperblock;
import io.blockcache.format.CheckpointItem;
import io.blockcache.format.DecodeResult;
import io.blockcache.format.SuperblockPair;
import io.blockcache.journal.CheckpointReader;
import io.blockcache.journal.JournalRecovery;
import io.blockcache.loop.EventLoop;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * Opens a cache set: recovery (docs/FORMAT.md §8). Reads only, until everything checked out and was replayed in
 * memory; the first write is the superblock repair or flag change at the very end. So a crash anywhere in
 * here is just another crash.
 *
 * <p>Steps: superblocks, each backing header against the superblock's record of it, the journal ring, the
 * newest checkpoint's buckets; then {@link CacheSetBuilder} replays and wires the cache set.
 */
final class CacheOpener {
    private final EventLoop loop;
    private final BlockDevice cacheDevice;
    private final List<BackingSpec> specs;
    private final CacheSetOptions options;
    private final Consumer<Outcome<CacheSet>> done;
    private SuperblockPair pair;
    private final List<BackingSpec> ordered = new ArrayList<>();
    private JournalRecovery journal;

    private CacheOpener(EventLoop loop, BlockDevice cacheDevice, List<BackingSpec> specs, CacheSetOptions options,
                        Consumer<Outcome<CacheSet>> done) {
        this.loop = loop;
        this.cacheDevice = cacheDevice;
        this.specs = specs;
        this.options = options;
        this.done = done;
    }

    static void open(EventLoop loop, BlockDevice cacheDevice, List<BackingSpec> specs, CacheSetOptions options,
                     Consumer<Outcome<CacheSet>> done) {
        new CacheOpener(loop, cacheDevice, specs, options, done).readSuperblocks();
    }

    private void fail(String message) {
        done.accept(Outcome.failed(message));
    }

    private void readSuperblocks() {
        DeviceBytes.readSalvaging(cacheDevice, 0, 2 * CacheSuperblock.BYTES, read -> {
            // An unreadable copy reads as zeroes, which decode as an invalid copy: the other one wins, and the
            // repair at the end of the open rewrites the bad one (which clears a latent sector error).
            byte[] bytes = read.bytes();
            DecodeResult<SuperblockPair> decoded = SuperblockPair.read(Arrays.copyOfRange(bytes, 0, 4096),
                    Arrays.copyOfRange(bytes, 4096, 8192));
            if (!decoded.isOk()) {
                fail("cache device holds no valid blockcache superblock (is it formatted?): " + decoded.error());
                return;
            }
            pair = decoded.value();
            CacheSuperblock superblock = pair.chosen();
            if (cacheDevice.sizeBytes() < superblock.deviceBytesMin()) {
                fail("cache device is " + cacheDevice.sizeBytes() + " bytes but its superblock describes "
                        + superblock.deviceBytesMin() + " bytes (" + superblock.bucketCount() + " buckets of "
                        + superblock.bucketSizeBytes() + "): was it truncated?");
                return;
            }
            String mismatch = matchBackings(superblock);
            if (mismatch != null) {
                fail(mismatch);
                return;
            }
            checkBacking(0, new ArrayList<>());
        });
    }

    /** Puts the given backing devices in the superblock's order; says what is missing or extra. */
    private String matchBackings(CacheSuperblock superblock) {
        for (AttachedBacking attached : superblock.backings()) {
            BackingSpec match = null;
            for (BackingSpec spec : specs) {
                if (spec.name().equals(attached.exportName())) {
                    match = spec;
                }
            }
            if (match == null) {
                return "backing device for volume " + attached.volumeId() + " (\"" + attached.exportName()
                        + "\") of this cache set was not given; it may hold dirty data, so the cache will not open"
                        + " without it";
            }
            ordered.add(match);
        }
        for (BackingSpec spec : specs) {
            if (!ordered.contains(spec)) {
                return "backing device \"" + spec.name() + "\" is not attached to this cache set (attached: "
                        + superblock.backings().stream().map(AttachedBacking::exportName).toList() + ")";
            }
        }
        return null;
    }

    private void checkBacking(int index, List<String> refusals) {
        CacheSuperblock superblock = pair.chosen();
        if (index == ordered.size()) {
            if (!refusals.isEmpty()) {
                fail(String.join("; ", refusals));
                return;
            }
            readJournal();
            return;
        }
        BlockDevice device = ordered.get(index).device();
        DeviceBytes.read(device, 0, BackingHeader.BYTES, read -> {
            AttachedBacking expected = superblock.backings().get(index);
            if (!read.isOk()) {
                refusals.add("backing device \"" + expected.exportName() + "\": " + read.error());
            } else {
                for (AttachCheck.Refusal refusal : AttachCheck.check(BackingHeader.decode(read.value(), 0), expected,
                        superblock.cacheSetUuid(), device.sizeBytes())) {
                    refusals.add(refusal.message());
                }
            }
            checkBacking(index + 1, refusals);
        });
    }

    private void readJournal() {
        CacheSuperblock superblock = pair.chosen();
        int ringBytes = Math.multiplyExact(superblock.journalBuckets(), superblock.bucketSizeBytes());
        DeviceBytes.readSalvaging(cacheDevice, superblock.bucketOffsetBytes(superblock.journalFirstBucket()), ringBytes,
                read -> {
            try {
                journal = JournalRecovery.recover(read.bytes(), superblock.bucketSizeBytes(), read.unreadableBlocks());
            } catch (JournalRecovery.CorruptJournalException e) {
                fail(e.getMessage());
                return;
            }
            readCheckpoint(0, new ArrayList<>());
        });
    }

    private void readCheckpoint(int index, List<byte[]> contents) {
        CacheSuperblock superblock = pair.chosen();
        if (journal.checkpoint() == null || index == journal.checkpoint().buckets().size()) {
            List<CheckpointItem> items = List.of();
            if (journal.checkpoint() != null) {
                try {
                    items = CheckpointReader.read(journal.checkpoint(), contents);
                } catch (JournalRecovery.CorruptJournalException e) {
                    fail(e.getMessage());
                    return;
                }
            }
            build(items);
            return;
        }
        int bucket = journal.checkpoint().buckets().get(index);
        if (bucket < 0 || bucket >= superblock.bucketCount()) {
            fail("checkpoint " + journal.checkpoint().checkpointStartSequence() + " names bucket " + bucket
                    + ", outside the cache's " + superblock.bucketCount() + " buckets");
            return;
        }
        DeviceBytes.read(cacheDevice, superblock.bucketOffsetBytes(bucket), superblock.bucketSizeBytes(), read -> {
            if (!read.isOk()) {
                fail("checkpoint bucket " + bucket + ": " + read.error());
                return;
            }
            contents.add(read.value());
            readCheckpoint(index + 1, contents);
        });
    }

    private void build(List<CheckpointItem> checkpointItems) {
        CacheSet set;
        try {
            set = new CacheSetBuilder(loop, cacheDevice, ordered, options, pair.chosen(), journal)
                    .build(checkpointItems);
        } catch (IllegalStateException | IllegalArgumentException e) {
            // Replay found metadata that breaks an invariant: corruption the checksums did not catch. Fail-stop.
            fail("recovery failed while replaying metadata: " + e.getMessage());
            return;
        }
        CacheSuperblock superblock = pair.chosen();
        if (!pair.otherNeedsRepair() && !superblock.cleanShutdown()) {
            done.accept(Outcome.ok(set));
            return;
        }
        // Repair a damaged copy, and clear the clean-shutdown flag so a crash from now on reads as unclean.
        set.rewriteSuperblock(0, result -> done.accept(result.ok() ? Outcome.ok(set)
                : Outcome.failed("rewriting the superblock at open failed: " + result.message())));
    }
}
