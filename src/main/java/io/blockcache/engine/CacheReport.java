package io.blockcache.engine;

import io.blockcache.format.CacheSuperblock;
import io.blockcache.format.SuperblockPair;
import java.util.List;

/**
 * What {@link CacheInspector} found on a cache device: the basis of {@code blockcache check}. Immutable.
 *
 * <p>A section is null when an earlier step failed so badly that it could not be examined (no valid
 * superblock: nothing else; a corrupt journal: no index). {@link #problems()} then says why.
 *
 * @param problems inconsistencies; the cache is consistent exactly when this is empty
 * @param notes things worth knowing that are not inconsistencies (a damaged superblock copy that the other
 *     copy covers, stale clean keys that open will drop)
 * @param superblock the superblock pair, or null if neither copy is valid
 * @param journal the journal walk and checkpoint, or null if the journal could not be recovered
 * @param buckets bucket usage after replay, or null if the index could not be rebuilt
 * @param volumes each attached volume after replay, in superblock order (empty if not rebuilt)
 * @param data the optional CRC check of cached data, or null if it was not asked for or not reached
 */
public record CacheReport(List<String> problems, List<String> notes, SuperblockStatus superblock,
                          JournalStatus journal, BucketCounts buckets, List<VolumeReport> volumes, DataStatus data) {
    public CacheReport {
        problems = List.copyOf(problems);
        notes = List.copyOf(notes);
        volumes = List.copyOf(volumes);
    }

    /** True when no problem was found. */
    public boolean ok() {
        return problems.isEmpty();
    }

    /** Live extents over all volumes. */
    public long extents() {
        return volumes.stream().mapToLong(VolumeReport::extents).sum();
    }

    /** Dirty bytes over all volumes. */
    public long dirtyBytes() {
        return volumes.stream().mapToLong(VolumeReport::dirtyBytes).sum();
    }

    /**
     * The superblock in force and the state of the other copy.
     *
     * @param chosen the superblock recovery would use
     * @param chosenCopy where it came from
     * @param otherStatus what the other copy holds
     * @param description one line from {@link SuperblockPair#describe()}
     */
    public record SuperblockStatus(CacheSuperblock chosen, SuperblockPair.Copy chosenCopy,
                                   SuperblockPair.OtherStatus otherStatus, String description) {
    }

    /**
     * The journal as recovery sees it.
     *
     * @param firstReplayedSequence sequence of the first entry replay applies, 0 if none
     * @param lastValidSequence sequence of the last valid entry of the walk, 0 if none
     * @param entriesReplayed entries replay applies
     * @param stopDescription why the walk ended
     * @param checkpointStartSequence the start sequence of the checkpoint loaded, 0 if none
     * @param checkpointBuckets buckets holding that checkpoint
     * @param checkpointExtents extents recorded in that checkpoint
     */
    public record JournalStatus(long firstReplayedSequence, long lastValidSequence, int entriesReplayed,
                                String stopDescription, long checkpointStartSequence, List<Integer> checkpointBuckets,
                                long checkpointExtents) {
        public JournalStatus {
            checkpointBuckets = List.copyOf(checkpointBuckets);
        }
    }

    /**
     * Buckets by use after replay; they add up to the bucket count.
     *
     * @param free no live sectors
     * @param clean live sectors, none dirty
     * @param dirty at least one dirty sector
     * @param journal the journal ring
     * @param metadata the loaded checkpoint
     */
    public record BucketCounts(int free, int clean, int dirty, int journal, int metadata) {
    }

    /**
     * One volume after replay; stale keys are not counted.
     *
     * @param volumeId id in journal records
     * @param name export name
     * @param sizeBytes volume size
     * @param extents live extents
     * @param cachedBytes bytes mapped by live extents
     * @param dirtyBytes bytes mapped by dirty extents
     */
    public record VolumeReport(int volumeId, String name, long sizeBytes, long extents, long cachedBytes,
                               long dirtyBytes) {
    }

    /**
     * The CRC check of cached data ({@code check --data}).
     *
     * @param spansChecked CRC spans read and checked
     * @param blockCrcsChecked 4 KiB blocks of those spans checked against their own CRC too (docs/FORMAT.md §9)
     * @param bytesRead cache bytes read
     * @param mismatches spans, or single blocks, whose data does not match their CRC32C
     */
    public record DataStatus(long spansChecked, long blockCrcsChecked, long bytesRead, List<CrcMismatch> mismatches) {
        public DataStatus {
            mismatches = List.copyOf(mismatches);
        }
    }

    /**
     * Cached data that does not match its CRC32C.
     *
     * @param bucket the bucket
     * @param crcOffsetInBucketSectors start of the CRC span in the bucket
     * @param crcLengthSectors length of the CRC span
     * @param volumeName the volume whose extent points there
     * @param startSector first backing sector of that extent
     * @param lengthSectors its length
     */
    public record CrcMismatch(int bucket, int crcOffsetInBucketSectors, int crcLengthSectors, String volumeName,
                              long startSector, int lengthSectors) {
    }
}
