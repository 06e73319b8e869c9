package io.blockcache.engine;

import io.blockcache.format.AttachedBacking;
import io.blockcache.format.CacheSuperblock;
import io.blockcache.format.CheckpointItem;
import io.blockcache.format.DecodeResult;
import io.blockcache.format.JournalEntry;
import io.blockcache.format.JournalRecord;
import io.blockcache.format.Crc;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/**
 * Salvage's answer to a cache whose two superblock copies are both gone (zeroed, overwritten): the geometry and the
 * volume table rebuilt from what the rest of the device still says, so the dirty data can be found at all
 * (docs/OPERATIONS.md "Salvage").
 *
 * <p>What is known without a superblock: every cache this program formats puts bucket 0 at
 * {@link Geometry#DATA_START_BYTES} and the journal ring at buckets 0.. (docs/FORMAT.md §2), and a ring bucket in
 * use starts with a journal entry (the writer begins each bucket at its first byte). What is not: the bucket size
 * (a power of two in 128 KiB..8 MiB), the ring's length, the volumes' names and sizes. So each bucket size is tried:
 * the ring is the run of buckets from 0 that start with an entry that verifies, and the size is scored by how many of
 * the newest extent records' CRC32C spans and checkpoint chunks are found where that geometry puts them; a wrong
 * size puts them elsewhere. Volume ids come from the records; a volume's size is the end of the last sector any
 * record names, rounded up to 1 MiB; names are {@code volume-ID}, ID being the volume's place among format's
 * {@code --backing} options (0 first; {@link CacheFormatter} numbers them so).
 *
 * <p>Pure apart from the caller's reads; offline, on the caller's thread.
 */
public final class SuperblockRebuild {
    /** How many of the newest extent records a geometry is scored on. */
    private static final int SAMPLED_EXTENTS = 64;
    /** How many of the newest checkpoints' first chunk a geometry is scored on (each read costs a bucket). */
    private static final int SAMPLED_CHECKPOINTS = 4;
    /** Ring buckets tried at most: the ring is at most 64 buckets by default, and an operator's choice is bounded. */
    private static final int RING_BUCKETS_MAX = 4096;
    private static final long MIB = 1 << 20;

    private SuperblockRebuild() {
    }

    /** One geometry tried: its ring, what it found there, and its score. */
    private record Candidate(int bucketSizeBytes, int bucketCount, int ringBuckets, SalvageJournal journal,
                             int score, int sampled) {
    }

    /**
     * Rebuilds a superblock for the cache device of {@code deviceBytes} that {@code reader} reads, or says why it
     * cannot ({@link Salvager.SuperblockChoice#superblock()} null).
     *
     * @throws IOException if the device cannot be read
     */
    public static Salvager.SuperblockChoice rebuild(Salvager.CacheReader reader, long deviceBytes) throws IOException {
        Candidate best = null;
        for (int size = CacheSuperblock.BUCKET_SIZE_BYTES_MIN; size <= CacheSuperblock.BUCKET_SIZE_BYTES_MAX;
             size *= 2) {
            Candidate candidate = tryGeometry(reader, deviceBytes, size);
            if (candidate != null && (best == null || candidate.score() > best.score())) {
                best = candidate;
            }
        }
        if (best == null || best.score() == 0) {
            return new Salvager.SuperblockChoice(null, "no usable superblock, and the geometry cannot be rebuilt: "
                    + (best == null ? "no journal entry verifies at the start of bucket 0 for any bucket size"
                    : "no extent record's data or checkpoint chunk is found where any bucket size puts it")
                    + "; is this a blockcache cache file?");
        }
        Map<Integer, Long> volumeEnds = volumeEnds(reader, best);
        List<AttachedBacking> volumes = new ArrayList<>();
        for (Map.Entry<Integer, Long> volume : volumeEnds.entrySet()) {
            long bytes = Math.max(MIB, (volume.getValue() * 512 + MIB - 1) / MIB * MIB);
            volumes.add(new AttachedBacking(new UUID(0, volume.getKey() + 1L), bytes,
                    CacheSuperblock.DATA_START_BYTES_DEFAULT, volume.getKey(), "volume-" + volume.getKey()));
        }
        CacheSuperblock superblock = new CacheSuperblock(1, new UUID(0, 0), 512, best.bucketSizeBytes(),
                best.bucketCount(), Geometry.DATA_START_BYTES, 0, best.ringBuckets(), 0, volumes);
        return new Salvager.SuperblockChoice(superblock, "superblock: both copies are lost; geometry rebuilt from"
                + " the journal: bucket size " + best.bucketSizeBytes() + " B, " + best.bucketCount() + " buckets,"
                + " journal ring of " + best.ringBuckets() + " buckets, confirmed by " + best.score() + " of "
                + best.sampled() + " extent spans and checkpoint chunks. The volume table is gone too: volumes are"
                + " named volume-ID (ID = the volume's place among format's --backing options, 0 first) and sized to"
                + " the last sector a record names, rounded up to 1 MiB");
    }

    private static Candidate tryGeometry(Salvager.CacheReader reader, long deviceBytes, int bucketSizeBytes)
            throws IOException {
        long buckets = (deviceBytes - Geometry.DATA_START_BYTES) / bucketSizeBytes;
        if (buckets < Geometry.BUCKETS_MIN || buckets > Integer.MAX_VALUE) {
            return null;
        }
        int bucketCount = (int) buckets;
        int ring = 0;
        while (ring < Math.min(RING_BUCKETS_MAX, bucketCount - 1)
                && startsWithEntry(reader, bucketOffset(ring, bucketSizeBytes), bucketSizeBytes)) {
            ring++;
        }
        if (ring == 0) {
            return null;
        }
        byte[] ringBytes = reader.read(Geometry.DATA_START_BYTES, Math.multiplyExact(ring, bucketSizeBytes));
        SalvageJournal journal = SalvageJournal.scan(ringBytes, bucketSizeBytes, fraction -> { });
        int score = 0;
        int checkpoints = 0;
        List<JournalRecord.ExtentInsert> newest = new ArrayList<>();
        for (SalvageJournal.Found found : journal.entries().descendingMap().values()) {
            for (JournalRecord record : found.entry().records()) {
                if (record instanceof JournalRecord.ExtentInsert insert && newest.size() < SAMPLED_EXTENTS) {
                    newest.add(insert);
                } else if (record instanceof JournalRecord.CheckpointDone done && checkpoints < SAMPLED_CHECKPOINTS
                        && !done.buckets().isEmpty()) {
                    int bucket = done.buckets().get(0);
                    if (bucket >= ring && bucket < bucketCount) {
                        checkpoints++;
                        score += startsWithChunk(reader, bucketOffset(bucket, bucketSizeBytes), bucketSizeBytes,
                                done) ? 1 : 0;
                    }
                }
            }
        }
        int sampled = checkpoints;
        for (JournalRecord.ExtentInsert insert : newest) {
            if (insert.bucket() < ring || insert.bucket() >= bucketCount) {
                continue;
            }
            sampled++;
            long spanAt = bucketOffset(insert.bucket(), bucketSizeBytes)
                    + (long) (insert.offsetInBucketSectors() - insert.crcSpanStartSectors()) * 512;
            int spanBytes = insert.crcSpanLengthSectors() * 512;
            if (spanAt + spanBytes <= deviceBytes) {
                byte[] span = reader.read(spanAt, spanBytes);
                score += Crc.of(span, 0, span.length) == insert.crc32c() ? 1 : 0;
            }
        }
        return new Candidate(bucketSizeBytes, bucketCount, ring, journal, score, sampled);
    }

    private static long bucketOffset(int bucket, int bucketSizeBytes) {
        return Geometry.DATA_START_BYTES + (long) bucket * bucketSizeBytes;
    }

    private static boolean startsWithEntry(Salvager.CacheReader reader, long offsetBytes, int bucketSizeBytes)
            throws IOException {
        byte[] head = reader.read(offsetBytes, 4096);
        DecodeResult<Integer> bytes = JournalEntry.peekEntryBytes(head, 0, bucketSizeBytes);
        if (!bytes.isOk()) {
            return false;
        }
        byte[] whole = bytes.value() == head.length ? head : reader.read(offsetBytes, bytes.value());
        return JournalEntry.decode(whole, 0, bucketSizeBytes).isOk();
    }

    /** True if bucket {@code offsetBytes} holds a chunk of {@code done} (read whole: a chunk may fill it). */
    private static boolean startsWithChunk(Salvager.CacheReader reader, long offsetBytes, int bucketSizeBytes,
                                           JournalRecord.CheckpointDone done) throws IOException {
        return !SalvageCheckpoint.read(done, List.of(reader.read(offsetBytes, bucketSizeBytes))).chunks().isEmpty();
    }

    /** Every volume id the journal and its newest readable checkpoint name, with the end of the last sector named. */
    private static Map<Integer, Long> volumeEnds(Salvager.CacheReader reader, Candidate geometry)
            throws IOException {
        Map<Integer, Long> ends = new TreeMap<>();
        for (SalvageJournal.Found found : geometry.journal().entries().values()) {
            for (JournalRecord record : found.entry().records()) {
                switch (record) {
                    case JournalRecord.ExtentInsert insert ->
                            ends.merge(insert.volumeId(), insert.startSector() + insert.lengthSectors(), Math::max);
                    case JournalRecord.ExtentRemove remove ->
                            ends.merge(remove.volumeId(), remove.startSector() + remove.lengthSectors(), Math::max);
                    case JournalRecord.ExtentClean clean ->
                            ends.merge(clean.volumeId(), clean.startSector() + clean.lengthSectors(), Math::max);
                    case JournalRecord.EpochsVoid voided -> ends.merge(voided.volumeId(), 0L, Math::max);
                    default -> { }
                }
            }
        }
        for (JournalRecord.CheckpointDone done : geometry.journal().checkpoints()) {
            List<byte[]> contents = new ArrayList<>();
            for (int bucket : done.buckets()) {
                if (bucket >= 0 && bucket < geometry.bucketCount()) {
                    contents.add(reader.read(bucketOffset(bucket, geometry.bucketSizeBytes()),
                            geometry.bucketSizeBytes()));
                }
            }
            for (CheckpointItem item : SalvageCheckpoint.read(done, contents).items()) {
                if (item instanceof CheckpointItem.ExtentRun run) {
                    JournalRecord.ExtentInsert last = run.extents().get(run.extents().size() - 1);
                    ends.merge(run.volumeId(), last.startSector() + last.lengthSectors(), Math::max);
                }
            }
        }
        return ends;
    }
}
