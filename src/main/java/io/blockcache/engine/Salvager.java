package io.blockcache.engine;

import io.blockcache.cache.BucketTable;
import io.blockcache.device.BlockDevice;
import io.blockcache.format.AttachedBacking;
import io.blockcache.format.CacheSuperblock;
import io.blockcache.format.DecodeResult;
import io.blockcache.format.JournalRecord;
import io.blockcache.format.SuperblockPair;
import io.blockcache.index.ExtentIndex;
import io.blockcache.index.ExtentListener;
import io.blockcache.index.ExtentLocation;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.DoubleConsumer;

/**
 * Salvage (docs/OPERATIONS.md "Salvage"): finds the newest known version of every dirty range of a cache device whose
 * metadata open refuses, from everything that still verifies, and says which ranges it cannot know.
 *
 * <p>Data buckets hold bare sectors, with no header naming their volume or LBA (docs/FORMAT.md §2, §9): what a
 * bucket's bytes are is said only by extent records in the journal and the checkpoint, each with the CRC32C of its
 * data. So salvage rebuilds the index as open does, with the same {@link Replayer}, from a base and the journal
 * entries after it, and tracks per volume the ranges whose newest version is unknown: a lost journal entry may have
 * written anything, so from it on every range is unknown until a later record names it again (an insert or removal
 * sets a range whole; a clean marking says the backing device has it); a lost checkpoint chunk leaves its LBA gap
 * unknown likewise. The base is the newest checkpoint that reads whole and whose journal from its start survives;
 * failing that, the empty cache if the journal survives from its first entry; failing that, the newest checkpoint,
 * as far as it reads. Pure apart from the reads the caller's {@link CacheReader} makes; runs offline, on the caller's
 * thread, with no loop.
 */
public final class Salvager {
    /** Reads bytes of the cache device, blocking; salvage runs offline. */
    @FunctionalInterface
    public interface CacheReader {
        /** Returns {@code lengthBytes} bytes from {@code offsetBytes}. */
        byte[] read(long offsetBytes, int lengthBytes) throws IOException;
    }

    /** The superblock salvage uses and how it was chosen; {@code superblock} null if none could be. */
    public record SuperblockChoice(CacheSuperblock superblock, String note) {
    }

    /** Leaves visited per index step when collecting the dirty extents. */
    private static final int SCAN_NODES = 1024;

    private final CacheSuperblock superblock;
    private final CacheReader reader;
    private final List<String> notes = new ArrayList<>();
    private final Map<Integer, ExtentIndex> indexes = new LinkedHashMap<>();
    private final Map<Integer, SectorRanges> unknown = new LinkedHashMap<>();
    private final Map<Integer, List<String>> unknownReasons = new LinkedHashMap<>();
    private final BucketTable table;

    private Salvager(CacheSuperblock superblock, CacheReader reader) {
        this.superblock = superblock;
        this.reader = reader;
        this.table = new BucketTable(superblock.bucketCount(), superblock.bucketSizeBytes() / BlockDevice.SECTOR_BYTES);
        for (AttachedBacking backing : superblock.backings()) {
            indexes.put(backing.volumeId(), new ExtentIndex(ExtentListener.NONE, false));
            unknown.put(backing.volumeId(), new SectorRanges());
            unknownReasons.put(backing.volumeId(), new ArrayList<>());
        }
    }

    /**
     * Chooses the superblock from the two copies' bytes ({@code 2 * 4096}): as open does ({@link SuperblockPair}),
     * and when neither copy verifies, a copy whose fields are all valid despite its CRC
     * ({@link CacheSuperblock#decodeIgnoringCrc}), preferring one both copies agree on.
     */
    public static SuperblockChoice chooseSuperblock(byte[] copies) {
        byte[] a = Arrays.copyOfRange(copies, 0, CacheSuperblock.BYTES);
        byte[] b = Arrays.copyOfRange(copies, CacheSuperblock.BYTES, 2 * CacheSuperblock.BYTES);
        DecodeResult<SuperblockPair> pair = SuperblockPair.read(a, b);
        if (pair.isOk()) {
            return new SuperblockChoice(pair.value().chosen(), "superblock: " + pair.value().describe());
        }
        DecodeResult<CacheSuperblock> lenientA = CacheSuperblock.decodeIgnoringCrc(a, 0);
        DecodeResult<CacheSuperblock> lenientB = CacheSuperblock.decodeIgnoringCrc(b, 0);
        if (lenientA.isOk() && lenientB.isOk()) {
            boolean agree = lenientA.value().equals(lenientB.value());
            return new SuperblockChoice(lenientA.value(), "superblock: neither copy verifies (" + pair.error()
                    + "); using copy A with its CRC ignored, its fields all valid"
                    + (agree ? " and equal to copy B's" : "; copy B's differ"));
        }
        if (lenientA.isOk() || lenientB.isOk()) {
            String copy = lenientA.isOk() ? "A" : "B";
            return new SuperblockChoice(lenientA.isOk() ? lenientA.value() : lenientB.value(), "superblock: neither"
                    + " copy verifies (" + pair.error() + "); using copy " + copy
                    + " with its CRC ignored, its fields all valid; the other copy's fields are not");
        }
        return new SuperblockChoice(null, "no usable superblock: " + pair.error() + "; without the geometry and the"
                + " volume table salvage cannot tell where the journal is or which volume a record names");
    }

    /**
     * Plans the salvage of the cache device {@code reader} reads, whose superblock is {@code superblock}.
     *
     * @param progress told the fraction of the journal ring scanned
     * @throws IOException if the journal ring cannot be read
     */
    public static SalvagePlan plan(CacheSuperblock superblock, CacheReader reader, DoubleConsumer progress)
            throws IOException {
        return new Salvager(superblock, reader).run(progress);
    }

    private SalvagePlan run(DoubleConsumer progress) throws IOException {
        int ringBytes = Math.multiplyExact(superblock.journalBuckets(), superblock.bucketSizeBytes());
        byte[] ring = reader.read(superblock.bucketOffsetBytes(superblock.journalFirstBucket()), ringBytes);
        SalvageJournal journal = SalvageJournal.scan(ring, superblock.bucketSizeBytes(), progress);
        notes.addAll(journal.notes());
        long newest = journal.newestSequence();
        SalvageCheckpoint base = null;
        long replayFrom = 1;
        List<SalvageCheckpoint> read = new ArrayList<>();
        for (JournalRecord.CheckpointDone done : journal.checkpoints()) {
            SalvageCheckpoint checkpoint = SalvageCheckpoint.read(done, bucketContents(done));
            read.add(checkpoint);
            if (!checkpoint.complete()) {
                // Only the newest checkpoint's buckets are kept (docs/FORMAT.md §7 rule 3): an older one that does
                // not read whole was most likely overwritten, not damaged.
                notes.add("checkpoint " + done.checkpointStartSequence() + (read.size() == 1 ? " is damaged: "
                        : " (superseded; its buckets may have been reused): ") + checkpoint.chunks().size()
                        + " chunks verify, and they do not make the whole its CheckpointDone record describes");
            }
            if (checkpoint.complete() && journal.complete(done.checkpointStartSequence(), newest)) {
                base = checkpoint;
                break;
            }
        }
        if (base != null) {
            replayFrom = base.done().checkpointStartSequence();
        } else if (!journal.complete(1, newest)) {
            if (!read.isEmpty()) {
                base = read.get(0);
                replayFrom = base.done().checkpointStartSequence();
            } else {
                replayFrom = journal.entries().isEmpty() ? 1 : journal.entries().firstKey();
            }
        }
        notes.add(base == null ? "base: the empty cache, replaying the journal from sequence " + replayFrom
                : "base: checkpoint " + base.done().checkpointStartSequence() + (base.complete() ? ", read whole"
                : ", " + base.chunks().size() + " chunks readable (not whole)"));
        boolean generationsKnown = base == null || base.generationsCover(superblock.bucketCount());
        if (base != null) {
            applyBase(base);
        } else if (journal.entries().isEmpty() && journal.damaged() > 0) {
            markAllUnknown("no journal entry verifies, and damaged ones were found");
        } else if (replayFrom > 1) {
            markAllUnknown("the journal before sequence " + replayFrom + " is gone and no checkpoint survives");
        }
        replay(journal, replayFrom);
        return collect(generationsKnown);
    }

    private List<byte[]> bucketContents(JournalRecord.CheckpointDone done) {
        List<byte[]> contents = new ArrayList<>();
        for (int bucket : done.buckets()) {
            if (bucket < 0 || bucket >= superblock.bucketCount()) {
                notes.add("checkpoint " + done.checkpointStartSequence() + " names bucket " + bucket
                        + ", outside the cache");
                continue;
            }
            try {
                contents.add(reader.read(superblock.bucketOffsetBytes(bucket), superblock.bucketSizeBytes()));
            } catch (IOException e) {
                notes.add("checkpoint " + done.checkpointStartSequence() + ": bucket " + bucket + " cannot be read: "
                        + e.getMessage());
            }
        }
        return contents;
    }

    private void applyBase(SalvageCheckpoint base) {
        try {
            new Replayer(table, indexes).applyCheckpoint(base.items());
        } catch (IllegalStateException | IllegalArgumentException e) {
            markAllUnknown("checkpoint " + base.done().checkpointStartSequence() + " does not apply: "
                    + e.getMessage());
            return;
        }
        for (SalvageCheckpoint.Gap gap : base.gaps()) {
            markGap(base.done().checkpointStartSequence(), gap);
        }
    }

    /** Marks what a missing checkpoint chunk may have held; see {@link SalvageCheckpoint#gaps}. */
    private void markGap(long checkpoint, SalvageCheckpoint.Gap gap) {
        String reason = "checkpoint " + checkpoint + " has a chunk missing or damaged";
        Integer fromVolume = gap.from() == null ? null : gap.from().volumeId();
        Integer toVolume = gap.to() == null ? null : gap.to().volumeId();
        for (AttachedBacking backing : superblock.backings()) {
            int volume = backing.volumeId();
            long end = backing.volumeSizeBytes() / BlockDevice.SECTOR_BYTES;
            long from = fromVolume != null && fromVolume == volume ? gap.from().sector() : 0;
            long to = toVolume != null && toVolume == volume ? gap.to().sector() : end;
            if (fromVolume != null && toVolume != null && fromVolume.equals(toVolume) && fromVolume != volume) {
                continue; // the gap lies inside another volume
            }
            markUnknown(volume, from, to, reason);
        }
    }

    private void replay(SalvageJournal journal, long replayFrom) {
        Replayer replayer = new Replayer(table, indexes);
        long expected = replayFrom;
        for (SalvageJournal.Found found : journal.entries().tailMap(replayFrom, true).values()) {
            long sequence = found.entry().sequence();
            if (sequence > expected) {
                markAllUnknown(sequence == expected + 1 ? "journal entry " + expected + " is lost"
                        : "journal entries " + expected + ".." + (sequence - 1) + " are lost");
            }
            expected = sequence + 1;
            for (JournalRecord record : found.entry().records()) {
                try {
                    track(record);
                    replayer.apply(record);
                } catch (IllegalStateException | IllegalArgumentException e) {
                    markAllUnknown("journal entry " + sequence + " does not apply: " + e.getMessage());
                }
            }
        }
    }

    /** What a record says about the unknown ranges, before the replayer applies it. */
    private void track(JournalRecord record) {
        switch (record) {
            case JournalRecord.ExtentInsert insert -> known(insert.volumeId())
                    .remove(insert.startSector(), insert.startSector() + insert.lengthSectors());
            case JournalRecord.ExtentRemove remove -> known(remove.volumeId())
                    .remove(remove.startSector(), remove.startSector() + remove.lengthSectors());
            case JournalRecord.ExtentClean clean -> {
                // Written back and flushed: the backing device holds the newest data. An older dirty version the
                // index may hold there (from before a loss) must not be written over it.
                SectorRanges ranges = known(clean.volumeId());
                long end = clean.startSector() + clean.lengthSectors();
                for (SectorRanges.Range part : ranges.intersect(clean.startSector(), end)) {
                    indexes.get(clean.volumeId()).remove(part.startSector(), (int) part.lengthSectors());
                }
                ranges.remove(clean.startSector(), end);
            }
            default -> { }
        }
    }

    private SectorRanges known(int volumeId) {
        SectorRanges ranges = unknown.get(volumeId);
        if (ranges == null) {
            throw new IllegalStateException("journal names volume " + volumeId + ", which is not attached");
        }
        return ranges;
    }

    private void markAllUnknown(String reason) {
        for (AttachedBacking backing : superblock.backings()) {
            markUnknown(backing.volumeId(), 0, backing.volumeSizeBytes() / BlockDevice.SECTOR_BYTES, reason);
        }
    }

    private void markUnknown(int volumeId, long fromSector, long toSector, String reason) {
        if (toSector <= fromSector) {
            return;
        }
        unknown.get(volumeId).add(fromSector, toSector);
        List<String> reasons = unknownReasons.get(volumeId);
        if (!reasons.contains(reason)) {
            reasons.add(reason);
        }
    }

    private SalvagePlan collect(boolean generationsKnown) {
        if (!generationsKnown) {
            notes.add("bucket generations are not all known (a checkpoint chunk is missing): stale extents are"
                    + " told only by their CRC32C");
        }
        List<SalvagePlan.VolumePlan> volumes = new ArrayList<>();
        for (AttachedBacking backing : superblock.backings()) {
            int volume = backing.volumeId();
            SectorRanges unknownRanges = unknown.get(volume);
            List<SalvagePlan.Piece> dirty = new ArrayList<>();
            ExtentIndex index = indexes.get(volume);
            long cursor = 0;
            while (cursor != ExtentIndex.CURSOR_END) {
                cursor = index.forEachInNodes(cursor, SCAN_NODES, (start, length, location, crc, crcAt, crcLength) -> {
                    int bucket = ExtentLocation.bucket(location);
                    if (!ExtentLocation.dirty(location)) {
                        return;
                    }
                    if (generationsKnown && table.generation(bucket) != ExtentLocation.generation(location)) {
                        // Open would find the same: dirty data whose bucket moved on is lost (IndexAudit reports it).
                        markUnknown(volume, start, start + length, "bucket " + bucket + " was reused under a dirty"
                                + " extent (its generation moved on)");
                        return;
                    }
                    addKnownPieces(dirty, unknownRanges, start, length, location, crc, crcAt, crcLength);
                });
            }
            volumes.add(new SalvagePlan.VolumePlan(backing, dirty, unknownRanges.ranges(),
                    String.join("; ", unknownReasons.get(volume))));
        }
        return new SalvagePlan(superblock, notes, volumes);
    }

    /** Adds the parts of a dirty extent that lie outside the unknown ranges. */
    private static void addKnownPieces(List<SalvagePlan.Piece> dirty, SectorRanges unknownRanges, long start,
                                       int length, long location, int crc, int crcAt, int crcLength) {
        long position = start;
        long end = start + length;
        List<SectorRanges.Range> holes = new ArrayList<>(unknownRanges.intersect(start, end));
        holes.add(new SectorRanges.Range(end, end + 1));
        for (SectorRanges.Range hole : holes) {
            if (hole.startSector() > position) {
                int offset = ExtentLocation.offsetInBucketSectors(location) + (int) (position - start);
                dirty.add(new SalvagePlan.Piece(position, (int) (hole.startSector() - position),
                        ExtentLocation.bucket(location), offset, crcAt, crcLength, crc));
            }
            position = Math.max(position, hole.endSector());
        }
    }
}
