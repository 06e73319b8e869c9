package io.blockcache.engine;

import io.blockcache.device.BlockDevice;
import io.blockcache.format.CacheSuperblock;
import io.blockcache.format.CheckpointItem;
import io.blockcache.format.JournalScanner;
import io.blockcache.format.SuperblockPair;
import io.blockcache.journal.CheckpointReader;
import io.blockcache.journal.JournalRecovery;
import java.util.List;
import java.util.function.Consumer;

/**
 * Examines a cache device offline, with the same metadata walk as {@link CacheSet#open} ({@link MetadataWalker}),
 * and reports instead of failing: superblock pair, journal walk ({@link JournalRecovery}), checkpoint,
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
        new CacheInspector(cacheDevice, verifyData, done).walkMetadata();
    }

    private void finish(IndexAudit.Result audit, CacheReport.DataStatus data) {
        done.accept(new CacheReport(problems.problems(), problems.notes(), superblockStatus, journalStatus,
                audit == null ? null : audit.buckets(), audit == null ? List.of() : audit.volumes(), data));
    }

    private void stop(String problem) {
        problems.add(problem);
        finish(null, null);
    }

    private void walkMetadata() {
        MetadataWalker.walk(cacheDevice, walk -> {
            SuperblockPair pair = walk.pair();
            if (pair != null) {
                superblockStatus = new CacheReport.SuperblockStatus(pair.chosen(), pair.chosenCopy(),
                        pair.otherStatus(), pair.describe());
                if (pair.otherNeedsRepair()) {
                    // Not an inconsistency: the pair exists so that one copy may be lost; open rewrites it.
                    problems.note("superblock " + pair.describe() + "; open will rewrite it");
                }
            }
            recovery = walk.journal();
            if (recovery != null) {
                List<JournalScanner.ScannedEntry> walked = recovery.walked();
                long first = recovery.replay().isEmpty() ? 0 : recovery.replay().get(0).sequence();
                long last = walked.isEmpty() ? 0 : walked.get(walked.size() - 1).entry().sequence();
                journalStatus = new CacheReport.JournalStatus(first, last, recovery.replay().size(),
                        recovery.stopDescription(),
                        recovery.checkpoint() == null ? 0 : recovery.checkpoint().checkpointStartSequence(),
                        recovery.checkpoint() == null ? List.of() : recovery.checkpoint().buckets(),
                        recovery.checkpoint() == null ? 0 : recovery.checkpoint().extentCount());
            }
            if (!walk.ok()) {
                stop(walk.failure());
                return;
            }
            List<CheckpointItem> items = List.of();
            if (recovery.checkpoint() != null) {
                try {
                    items = CheckpointReader.read(recovery.checkpoint(), walk.checkpointBuckets());
                } catch (JournalRecovery.CorruptJournalException e) {
                    stop(e.getMessage());
                    return;
                }
            }
            if (!pair.chosen().cleanShutdown()) {
                // The audit checks every recorded extent (a damaged clean record is still damage), but open
                // will not serve the clean ones: say so, so that the report matches what open does.
                problems.note("not shut down cleanly: open keeps the dirty extents and the clean ones a backing"
                        + " flush covered, and drops the other clean ones (docs/FORMAT.md §7 rule 10)");
            }
            audit(pair.chosen(), items);
        });
    }

    private void audit(CacheSuperblock superblock, List<CheckpointItem> items) {
        IndexAudit.Result audit = new IndexAudit(superblock, recovery, problems).run(items);
        if (audit == null || !verifyData) {
            finish(audit, null);
            return;
        }
        DataAudit.run(cacheDevice, superblock, audit.spans(), audit.blockCrcs(), problems,
                data -> finish(audit, data));
    }
}
