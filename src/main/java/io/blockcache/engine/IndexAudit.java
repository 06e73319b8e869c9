package io.blockcache.engine;

import io.blockcache.cache.BlockChecksums;
import io.blockcache.cache.BucketTable;
import io.blockcache.device.BlockDevice;
import io.blockcache.format.AttachedBacking;
import io.blockcache.format.CacheSuperblock;
import io.blockcache.format.CheckpointItem;
import io.blockcache.index.ExtentIndex;
import io.blockcache.index.ExtentListener;
import io.blockcache.index.ExtentLocation;
import io.blockcache.journal.JournalRecovery;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Rebuilds the indexes exactly as open would ({@link Replayer} over the checkpoint and the journal), then
 * checks what open takes for granted: each index's structure, every live extent inside its bucket and out
 * of the journal and checkpoint buckets, no bucket holding more live sectors than it has, and no dirty
 * extent whose bucket generation moved on (that would be dirty data lost). Pure: no I/O, owns what it builds.
 */
final class IndexAudit {
    /** Leaves per scan step; the audit runs to the end, the bound only keeps each visit call short. */
    private static final int SCAN_NODES = 1024;

    /** A live extent's CRC span, for the optional data check. */
    record Span(int bucket, int crcOffsetInBucketSectors, int crcLengthSectors, int crc32c, String volumeName,
                long startSector, int lengthSectors) {
    }

    /** What the audit found. */
    record Result(CacheReport.BucketCounts buckets, List<CacheReport.VolumeReport> volumes, List<Span> spans,
                  BlockChecksums blockCrcs) {
    }

    private final CacheSuperblock superblock;
    private final JournalRecovery recovery;
    private final Problems problems;
    private final int bucketSectors;
    private final Set<Integer> checkpointBuckets = new HashSet<>();
    private final int[] liveSectors;
    private final int[] dirtySectors;
    private final List<Span> spans = new ArrayList<>();
    private long staleCleanExtents;

    IndexAudit(CacheSuperblock superblock, JournalRecovery recovery, Problems problems) {
        this.superblock = superblock;
        this.recovery = recovery;
        this.problems = problems;
        this.bucketSectors = superblock.bucketSizeBytes() / BlockDevice.SECTOR_BYTES;
        this.liveSectors = new int[superblock.bucketCount()];
        this.dirtySectors = new int[superblock.bucketCount()];
        if (recovery.checkpoint() != null) {
            checkpointBuckets.addAll(recovery.checkpoint().buckets());
        }
    }

    /** Replays and checks; returns null (with a problem recorded) if replay itself failed. */
    Result run(List<CheckpointItem> checkpointItems) {
        BucketTable table = new BucketTable(superblock.bucketCount(), bucketSectors);
        Map<Integer, ExtentIndex> indexes = new LinkedHashMap<>();
        for (AttachedBacking attached : superblock.backings()) {
            indexes.put(attached.volumeId(), new ExtentIndex(ExtentListener.NONE, false));
        }
        BlockChecksums blockCrcs = new BlockChecksums(superblock.bucketCount(), bucketSectors);
        try {
            Replayer replayer = new Replayer(table, indexes, Map.of(), blockCrcs, null);
            replayer.applyCheckpoint(checkpointItems);
            replayer.applyEntries(recovery.replay());
        } catch (IllegalStateException | IllegalArgumentException e) {
            // The same failure makes open fail-stop: metadata that passed its checksums breaks an invariant.
            problems.add("replaying the checkpoint and journal failed: " + e.getMessage());
            return null;
        }
        List<CacheReport.VolumeReport> volumes = new ArrayList<>();
        for (AttachedBacking attached : superblock.backings()) {
            volumes.add(auditVolume(attached, indexes.get(attached.volumeId()), table));
        }
        for (int b = 0; b < liveSectors.length; b++) {
            if (liveSectors[b] > bucketSectors) {
                problems.add("bucket " + b + " holds " + liveSectors[b] + " live sectors, more than its "
                        + bucketSectors + ": extents overlap inside it");
            }
        }
        if (staleCleanExtents > 0) {
            problems.note(staleCleanExtents + " stale clean extents (their bucket was reused); open drops them");
        }
        return new Result(countBuckets(), volumes, spans, blockCrcs);
    }

    private CacheReport.VolumeReport auditVolume(AttachedBacking attached, ExtentIndex index, BucketTable table) {
        String name = attached.exportName();
        try {
            index.verify();
        } catch (IllegalStateException e) {
            problems.add("volume \"" + name + "\": index structure is broken: " + e.getMessage());
        }
        long[] totals = new long[3]; // extents, cached sectors, dirty sectors
        long cursor = 0;
        while (cursor != ExtentIndex.CURSOR_END) {
            cursor = index.forEachInNodes(cursor, SCAN_NODES, (start, length, location, crc, crcOffset, crcLength) -> {
                if (auditExtent(name, table, start, length, location, crc, crcOffset, crcLength)) {
                    boolean dirty = ExtentLocation.dirty(location);
                    totals[0]++;
                    totals[1] += length;
                    totals[2] += dirty ? length : 0;
                }
            });
        }
        return new CacheReport.VolumeReport(attached.volumeId(), name, attached.volumeSizeBytes(), totals[0],
                totals[1] * BlockDevice.SECTOR_BYTES, totals[2] * BlockDevice.SECTOR_BYTES);
    }

    /** Checks one extent; counts it and returns true if it is live (not stale, inside a data bucket). */
    private boolean auditExtent(String volume, BucketTable table, long start, int length, long location, int crc,
                                int crcOffset, int crcLength) {
        int bucket = ExtentLocation.bucket(location);
        int offset = ExtentLocation.offsetInBucketSectors(location);
        boolean dirty = ExtentLocation.dirty(location);
        String what = "volume \"" + volume + "\" sectors [" + start + ", " + (start + length) + ") at "
                + ExtentLocation.toString(location);
        if (bucket >= superblock.bucketCount()) {
            problems.add(what + ": bucket outside the cache's " + superblock.bucketCount() + " buckets");
            return false;
        }
        if (ExtentLocation.generation(location) != table.generation(bucket)) {
            if (dirty) {
                problems.add(what + ": dirty extent with stale generation (bucket " + bucket + " is at generation "
                        + table.generation(bucket) + "): its data was lost");
            } else {
                staleCleanExtents++;
            }
            return false;
        }
        if (isJournalBucket(bucket) || checkpointBuckets.contains(bucket)) {
            problems.add(what + ": extent inside a " + (isJournalBucket(bucket) ? "journal" : "checkpoint")
                    + " bucket");
        }
        if (offset + length > bucketSectors || crcOffset < 0 || crcOffset > offset
                || crcOffset + crcLength > bucketSectors || crcOffset + crcLength < offset + length) {
            problems.add(what + ": extent or its CRC span [" + crcOffset + ", +" + crcLength
                    + ") does not fit its bucket of " + bucketSectors + " sectors");
            return false;
        }
        liveSectors[bucket] += length;
        dirtySectors[bucket] += dirty ? length : 0;
        spans.add(new Span(bucket, crcOffset, crcLength, crc, volume, start, length));
        return true;
    }

    private boolean isJournalBucket(int bucket) {
        return bucket >= superblock.journalFirstBucket()
                && bucket < superblock.journalFirstBucket() + superblock.journalBuckets();
    }

    private CacheReport.BucketCounts countBuckets() {
        int free = 0;
        int clean = 0;
        int dirty = 0;
        int journal = 0;
        int metadata = 0;
        for (int b = 0; b < liveSectors.length; b++) {
            if (isJournalBucket(b)) {
                journal++;
            } else if (checkpointBuckets.contains(b)) {
                metadata++;
            } else if (dirtySectors[b] > 0) {
                dirty++;
            } else if (liveSectors[b] > 0) {
                clean++;
            } else {
                free++;
            }
        }
        return new CacheReport.BucketCounts(free, clean, dirty, journal, metadata);
    }
}
