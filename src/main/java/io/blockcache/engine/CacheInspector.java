package io.blockcache.engine;

import io.blockcache.device.BlockDevice;
import io.blockcache.format.CacheSuperblock;
import io.blockcache.format.CheckpointItem;
import io.blockcache.format.DecodeResult;
import io.blockcache.format.JournalScanner;
import io.blockcache.format.SuperblockPair;
import io.blockcache.journal.CheckpointReader;
import io.blockcache.journal.JournalRecovery;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * Examines a cache device offline, the way {@link CacheSet#open} would recover it, and reports instead of
 * failing: superblock pair, journal walk ({@link JournalRecovery}), checkpoint ({@link CheckpointReader}),
 * the replayed indexes ({@link IndexAudit}) and, if asked, the CRC32C of every live extent's data
 * ({@link DataAudit}). It only ever reads: no backing device is needed and nothing is repaired.
 *
 * <p>Thread rule: call on the device's loop thread; {@code done} runs there, exactly once.
 */
public final class CacheInspector {
    private final BlockDevice cacheDevice;
    private final boolean verifyData;
    private final Consumer<CacheReport> done;
    private final Problems problems = new Problems();
    private CacheReport.SuperblockStatus superblockStatus;
    private CacheReport.JournalStatus journalStatus;
    private JournalRecovery recovery;

    private CacheInspector(BlockDevice cacheDevice, boolean verifyData, Consumer<CacheReport> done) {
        this.cacheDevice = cacheDevice;
        this.verifyData = verifyData;
        this.done = done;
    }

    /**
     * Inspects {@code cacheDevice}.
     *
     * @param verifyData also read every live extent's CRC span and check its CRC32C (reads all cached data)
     * @param done receives the report
     */
    public static void inspect(BlockDevice cacheDevice, boolean verifyData, Consumer<CacheReport> done) {
        new CacheInspector(cacheDevice, verifyData, done).readSuperblocks();
    }

    private void finish(IndexAudit.Result audit, CacheReport.DataStatus data) {
        done.accept(new CacheReport(problems.problems(), problems.notes(), superblockStatus, journalStatus,
                audit == null ? null : audit.buckets(), audit == null ? List.of() : audit.volumes(), data));
    }

    private void stop(String problem) {
        problems.add(problem);
        finish(null, null);
    }

    private void readSuperblocks() {
        DeviceBytes.read(cacheDevice, 0, 2 * CacheSuperblock.BYTES, read -> {
            if (!read.isOk()) {
                stop("cache device: " + read.error());
                return;
            }
            byte[] bytes = read.value();
            DecodeResult<SuperblockPair> decoded = SuperblockPair.read(
                    Arrays.copyOfRange(bytes, 0, CacheSuperblock.BYTES),
                    Arrays.copyOfRange(bytes, CacheSuperblock.BYTES, 2 * CacheSuperblock.BYTES));
            if (!decoded.isOk()) {
                stop("superblock: " + decoded.error().message());
                return;
            }
            SuperblockPair pair = decoded.value();
            superblockStatus = new CacheReport.SuperblockStatus(pair.chosen(), pair.chosenCopy(),
                    pair.otherStatus(), pair.describe());
            if (pair.otherNeedsRepair()) {
                // Not an inconsistency: the pair exists so that one copy may be lost; open rewrites it.
                problems.note("superblock " + pair.describe() + "; open will rewrite it");
            }
            CacheSuperblock superblock = pair.chosen();
            if (cacheDevice.sizeBytes() < superblock.deviceBytesMin()) {
                stop("cache device is " + cacheDevice.sizeBytes() + " bytes but its superblock describes "
                        + superblock.deviceBytesMin() + " bytes: was it truncated?");
                return;
            }
            readJournal(superblock);
        });
    }

    private void readJournal(CacheSuperblock superblock) {
        int ringBytes = Math.multiplyExact(superblock.journalBuckets(), superblock.bucketSizeBytes());
        long ringStartBytes = superblock.bucketOffsetBytes(superblock.journalFirstBucket());
        DeviceBytes.read(cacheDevice, ringStartBytes, ringBytes, read -> {
            if (!read.isOk()) {
                stop("journal: " + read.error());
                return;
            }
            try {
                recovery = JournalRecovery.recover(read.value(), superblock.bucketSizeBytes());
            } catch (JournalRecovery.CorruptJournalException e) {
                stop(e.getMessage() + " (ring byte 0 is cache byte " + ringStartBytes + ")");
                return;
            }
            List<JournalScanner.ScannedEntry> walked = recovery.walked();
            long first = recovery.replay().isEmpty() ? 0 : recovery.replay().get(0).sequence();
            long last = walked.isEmpty() ? 0 : walked.get(walked.size() - 1).entry().sequence();
            journalStatus = new CacheReport.JournalStatus(first, last, recovery.replay().size(),
                    recovery.stopDescription(),
                    recovery.checkpoint() == null ? 0 : recovery.checkpoint().checkpointStartSequence(),
                    recovery.checkpoint() == null ? List.of() : recovery.checkpoint().buckets(),
                    recovery.checkpoint() == null ? 0 : recovery.checkpoint().extentCount());
            readCheckpoint(superblock, 0, new ArrayList<>());
        });
    }

    private void readCheckpoint(CacheSuperblock superblock, int index, List<byte[]> contents) {
        if (recovery.checkpoint() == null || index == recovery.checkpoint().buckets().size()) {
            List<CheckpointItem> items = List.of();
            if (recovery.checkpoint() != null) {
                try {
                    items = CheckpointReader.read(recovery.checkpoint(), contents);
                } catch (JournalRecovery.CorruptJournalException e) {
                    stop(e.getMessage());
                    return;
                }
            }
            audit(superblock, items);
            return;
        }
        int bucket = recovery.checkpoint().buckets().get(index);
        if (bucket < 0 || bucket >= superblock.bucketCount()) {
            stop("checkpoint " + recovery.checkpoint().checkpointStartSequence() + " names bucket " + bucket
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

    private void audit(CacheSuperblock superblock, List<CheckpointItem> items) {
        IndexAudit.Result audit = new IndexAudit(superblock, recovery, problems).run(items);
        if (audit == null || !verifyData) {
            finish(audit, null);
            return;
        }
        DataAudit.run(cacheDevice, superblock, audit.spans(), problems, data -> finish(audit, data));
    }
}
