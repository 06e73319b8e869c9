package io.blockcache.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.format.AttachedBacking;
import io.blockcache.format.CacheSuperblock;
import io.blockcache.format.CheckpointChunk;
import io.blockcache.format.CheckpointEncoder;
import io.blockcache.format.CheckpointItem;
import io.blockcache.format.Crc;
import io.blockcache.format.JournalEntry;
import io.blockcache.format.JournalRecord;
import io.blockcache.format.JournalRecord.ExtentInsert;
import io.blockcache.loop.Prng;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * {@link Salvager} on a cache image built byte by byte: a checkpoint of several chunks, one of them damaged, and a
 * journal that no longer reaches back to its first entry, so the damaged checkpoint is the only base there is.
 */
class SalvagerTest {
    private static final int BUCKET_BYTES = 128 << 10;
    private static final long DATA_START_BYTES = 1 << 20;
    private static final int BUCKETS = 16;
    private static final int CHECKPOINT_BUCKET = 2;
    private static final int FIRST_DATA_BUCKET = 3;
    private static final int EXTENTS = 300;
    /** One 4 KiB extent every 64 sectors, so no two touch. */
    private static final int STRIDE_SECTORS = 64;
    private static final int EXTENT_SECTORS = 8;
    private static final long CHECKPOINT_START = 2;

    private final byte[] device = new byte[(int) (DATA_START_BYTES + (long) BUCKETS * BUCKET_BYTES)];
    private final CacheSuperblock superblock = new CacheSuperblock(1, new UUID(1, 2), 512, BUCKET_BYTES, BUCKETS,
            DATA_START_BYTES, 0, 2, 0, List.of(new AttachedBacking(new UUID(3, 4), 16 << 20, 1 << 20, 0, "vol")));

    /** Writes 4 KiB of data for extent {@code i} into its bucket and returns its record. */
    private ExtentInsert extent(int i, long startSector, int seed) {
        byte[] data = new byte[EXTENT_SECTORS * 512];
        new Prng(seed).nextBytes(data);
        int bucket = FIRST_DATA_BUCKET + i / (BUCKET_BYTES / data.length);
        int offsetSectors = (i % (BUCKET_BYTES / data.length)) * EXTENT_SECTORS;
        System.arraycopy(data, 0, device, (int) (superblock.bucketOffsetBytes(bucket) + offsetSectors * 512L),
                data.length);
        return new ExtentInsert(0, startSector, EXTENT_SECTORS, bucket, offsetSectors, 0, true,
                Crc.of(data, 0, data.length), 0, EXTENT_SECTORS);
    }

    @Test
    void aDamagedChunkLeavesItsLbaGapListedAndTheRestRecovered() throws Exception {
        // Proves the extents of the chunks that verify are recovered, and exactly the LBA span between the chunks
        // around a damaged one (and after the last) is listed as unknown, less what a later journal entry rewrote.
        List<CheckpointItem> items = new ArrayList<>();
        items.add(new CheckpointItem.GenerationSlice(0, Collections.nCopies(BUCKETS, 0)));
        List<ExtentInsert> extents = new ArrayList<>();
        for (int i = 0; i < EXTENTS; i++) {
            extents.add(extent(i, (long) i * STRIDE_SECTORS, i + 1));
        }
        items.add(new CheckpointItem.ExtentRun(0, extents));
        // 4 KiB chunks: the 300 extents (8.7 KB) take three.
        CheckpointEncoder encoder = new CheckpointEncoder(CHECKPOINT_START, 4096, items.iterator());
        List<byte[]> chunks = new ArrayList<>();
        int at = (int) superblock.bucketOffsetBytes(CHECKPOINT_BUCKET);
        while (encoder.hasNext()) {
            byte[] chunk = encoder.nextChunk();
            System.arraycopy(chunk, 0, device, at, chunk.length);
            chunks.add(chunk);
            at += chunk.length;
        }
        assertThat(chunks).hasSizeGreaterThanOrEqualTo(3);
        // The LBA span of chunk 1 lies between chunk 0's last extent and chunk 2's first.
        long gapStart = lastEnd(chunks.get(0));
        long gapEnd = firstStart(chunks.get(2));
        assertThat(gapEnd).isGreaterThan(gapStart + STRIDE_SECTORS);

        // The journal after the checkpoint: entry 2 writes one extent inside the gap again, entry 3 records the
        // checkpoint done. Entry 1 is gone (the ring moved on), so the checkpoint is the only base.
        long rewritten = gapStart + STRIDE_SECTORS - (gapStart % STRIDE_SECTORS);
        ExtentInsert again = extent(EXTENTS, rewritten, 9999);
        byte[] entry2 = JournalEntry.encode(2, 0, 77, List.of(again), BUCKET_BYTES);
        byte[] entry3 = JournalEntry.encode(3, CHECKPOINT_START, JournalEntry.storedCrc(entry2),
                List.of(new JournalRecord.CheckpointDone(CHECKPOINT_START, List.of(CHECKPOINT_BUCKET),
                        encoder.extentCount(), encoder.checkpointCrc())), BUCKET_BYTES);
        System.arraycopy(entry2, 0, device, (int) DATA_START_BYTES, entry2.length);
        System.arraycopy(entry3, 0, device, (int) DATA_START_BYTES + entry2.length, entry3.length);
        System.arraycopy(superblock.encode(), 0, device, 0, 4096);
        System.arraycopy(superblock.encode(), 0, device, 4096, 4096);

        int chunk1 = (int) superblock.bucketOffsetBytes(CHECKPOINT_BUCKET) + chunks.get(0).length;
        device[chunk1 + 100] ^= 0x5A;

        SalvagePlan plan = Salvager.plan(Salvager.chooseSuperblock(Arrays.copyOf(device, 8192)).superblock(),
                (offset, length) -> Arrays.copyOfRange(device, (int) offset, (int) offset + length), fraction -> { });
        SalvagePlan.VolumePlan volume = plan.volumes().get(0);
        // And after the last chunk that verifies: with one chunk lost the digest cannot say whether more followed.
        long tailStart = lastEnd(chunks.get(chunks.size() - 1));
        assertThat(volume.unknown()).containsExactly(new SectorRanges.Range(gapStart, rewritten),
                new SectorRanges.Range(rewritten + EXTENT_SECTORS, gapEnd),
                new SectorRanges.Range(tailStart, (16 << 20) / 512));
        assertThat(volume.unknownReason()).contains("checkpoint 2 has a chunk missing or damaged");
        List<Long> expected = new ArrayList<>();
        for (ExtentInsert extent : extents) {
            if (extent.startSector() < gapStart || extent.startSector() >= gapEnd) {
                expected.add(extent.startSector());
            }
        }
        expected.add(rewritten);
        Collections.sort(expected);
        assertThat(volume.dirty().stream().map(SalvagePlan.Piece::startSector).toList()).isEqualTo(expected);
        SalvagePlan.Piece piece = volume.dirty().stream().filter(p -> p.startSector() == rewritten).findFirst()
                .orElseThrow();
        assertThat(piece.bucket()).isEqualTo(again.bucket());
        assertThat(piece.crc32c()).isEqualTo(again.crc32c());
        assertThat(plan.notes()).anyMatch(note -> note.contains("checkpoint 2 is damaged"));
    }

    @Test
    void aRangeWrittenBackAfterALostEntryIsNeitherRecoveredNorListed() throws Exception {
        // Proves a clean marking after a lost entry makes its range known (the backing device has the newest data)
        // and drops the older dirty version the checkpoint holds there, which would otherwise overwrite it.
        ExtentInsert older = extent(0, 0, 1);
        ExtentInsert other = extent(1, STRIDE_SECTORS, 2);
        CheckpointEncoder encoder = new CheckpointEncoder(CHECKPOINT_START, BUCKET_BYTES, List.<CheckpointItem>of(
                new CheckpointItem.GenerationSlice(0, Collections.nCopies(BUCKETS, 0)),
                new CheckpointItem.ExtentRun(0, List.of(older, other))).iterator());
        byte[] chunk = encoder.nextChunk();
        System.arraycopy(chunk, 0, device, (int) superblock.bucketOffsetBytes(CHECKPOINT_BUCKET), chunk.length);
        // Entry 3 (lost) rewrote sector 0 into bucket 9; entry 4 marks that copy clean after its writeback.
        byte[] entry2 = JournalEntry.encode(2, 0, 77, List.of(new JournalRecord.CheckpointDone(CHECKPOINT_START,
                List.of(CHECKPOINT_BUCKET), encoder.extentCount(), encoder.checkpointCrc())), BUCKET_BYTES);
        byte[] entry3 = JournalEntry.encode(3, CHECKPOINT_START, JournalEntry.storedCrc(entry2),
                List.of(new ExtentInsert(0, 0, EXTENT_SECTORS, 9, 0, 0, true, 5, 0, EXTENT_SECTORS)), BUCKET_BYTES);
        byte[] entry4 = JournalEntry.encode(4, CHECKPOINT_START, JournalEntry.storedCrc(entry3),
                List.of(new JournalRecord.ExtentClean(0, 0, EXTENT_SECTORS, 9, 0, 0)), BUCKET_BYTES);
        int at = (int) DATA_START_BYTES;
        for (byte[] entry : List.of(entry2, entry3, entry4)) {
            System.arraycopy(entry, 0, device, at, entry.length);
            at += entry.length;
        }
        device[(int) DATA_START_BYTES + entry2.length + 60] ^= 0x5A;
        System.arraycopy(superblock.encode(), 0, device, 0, 4096);

        SalvagePlan plan = Salvager.plan(superblock,
                (offset, length) -> Arrays.copyOfRange(device, (int) offset, (int) offset + length), fraction -> { });
        SalvagePlan.VolumePlan volume = plan.volumes().get(0);
        assertThat(volume.dirty()).isEmpty();
        assertThat(volume.unknown()).containsExactly(new SectorRanges.Range(EXTENT_SECTORS, (16 << 20) / 512));
        assertThat(volume.unknownReason()).contains("journal entry 3 is lost");
    }

    @Test
    void sectorRangesMergeAndSplit() {
        // Proves the unknown-range set merges touching ranges and splits on removal, as salvage relies on.
        SectorRanges ranges = new SectorRanges();
        ranges.add(0, 10);
        ranges.add(10, 20);
        ranges.add(30, 40);
        ranges.remove(5, 35);
        assertThat(ranges.ranges()).containsExactly(new SectorRanges.Range(0, 5), new SectorRanges.Range(35, 40));
        ranges.add(3, 36);
        assertThat(ranges.ranges()).containsExactly(new SectorRanges.Range(0, 40));
        assertThat(ranges.intersect(38, 50)).containsExactly(new SectorRanges.Range(38, 40));
    }

    private static long lastEnd(byte[] chunk) {
        long end = -1;
        for (CheckpointItem item : CheckpointChunk.decode(chunk, 0).value().items()) {
            if (item instanceof CheckpointItem.ExtentRun run) {
                ExtentInsert last = run.extents().get(run.extents().size() - 1);
                end = last.startSector() + last.lengthSectors();
            }
        }
        return end;
    }

    private static long firstStart(byte[] chunk) {
        for (CheckpointItem item : CheckpointChunk.decode(chunk, 0).value().items()) {
            if (item instanceof CheckpointItem.ExtentRun run) {
                return run.extents().get(0).startSector();
            }
        }
        throw new AssertionError("no extent run in the chunk");
    }
}
