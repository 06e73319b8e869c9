package io.blockcache.cache;

import io.blockcache.device.BlockDevice;
import io.blockcache.journal.MetadataJournal;
import io.blockcache.loop.Checks;
import java.nio.ByteBuffer;
import java.util.BitSet;
import java.util.zip.CRC32C;

/**
 * The CRC32C of every 4 KiB block of the cache device that one write filled whole, for the bucket's current
 * generation (docs/FORMAT.md §9): a 4 KiB read inside a larger cached extent reads and verifies just the blocks it
 * covers, instead of the extent's whole checksummed span (up to 128 KiB).
 *
 * <p><b>Why an entry stays true.</b> Data buckets are append-only: while a bucket keeps its generation no block in
 * it is written twice, and it is rewritten only after its generation bump (docs/FORMAT.md §7 rule 2). The allocator
 * forgets a bucket's entries at that bump and again when it hands the bucket out, so an entry never outlives the
 * bytes it checks. Entries are made only while their bucket is pinned (by the write that filled the block, or by a
 * read that verified it), so no bump can come between the bytes and the entry. A block that several writes share
 * (after sub-4 KiB writes) never gets an entry, and reads touching it verify their extent's span.
 *
 * <p><b>Where entries come from:</b> the write that fills a block (front-end writes, read-miss fills, moving GC),
 * from the bytes it hands to the device; and a read that verified a whole span against the extent's CRC, from the
 * bytes it verified (after an open, for data written before it). A wrong entry could only make a read of good data
 * fail its check, never let bad data through.
 *
 * <p>Memory: 4 B and one bit per 4 KiB of data buckets (1 MiB per GiB of cache), allocated once.
 *
 * <p>Thread rule: owned by the cache's loop thread.
 */
public final class BlockChecksums {
    /** Sectors per block: 4 KiB (docs/FORMAT.md §1: a block is 4096 B). */
    public static final int BLOCK_SECTORS = 8;
    /** Bytes per block. */
    public static final int BLOCK_BYTES = 4096;

    private final int blocksPerBucket;
    private final int bucketSectors;
    private final int bucketCount;
    private final int[] crcs;
    private final BitSet known;
    /** Reused for every block (loop thread only): no allocation on the data path. */
    private final CRC32C checksum = new CRC32C();

    /**
     * Tracks {@code bucketCount} buckets of {@code bucketSectors} sectors. Real buckets are whole 4 KiB blocks
     * (docs/FORMAT.md §2); a bucket that is not (small test geometries) has a last, partial block that never gets an
     * entry, so reads touching it always verify their span.
     */
    public BlockChecksums(int bucketCount, int bucketSectors) {
        Checks.check((long) bucketCount * Math.ceilDiv(bucketSectors, BLOCK_SECTORS) <= Integer.MAX_VALUE - 8,
                "%s buckets of %s sectors exceed 2^31 blocks (8 TiB)", bucketCount, bucketSectors);
        this.bucketCount = bucketCount;
        this.bucketSectors = bucketSectors;
        this.blocksPerBucket = Math.ceilDiv(bucketSectors, BLOCK_SECTORS);
        // Allocated once, whole: no growth (and no allocation) on the data path.
        this.crcs = new int[bucketCount * blocksPerBucket];
        this.known = new BitSet(bucketCount * blocksPerBucket);
    }

    /** The first block lying wholly inside sectors from {@code fromSector} on (a block one write can have filled). */
    public static int firstWholeBlock(int fromSector) {
        return Math.ceilDiv(fromSector, BLOCK_SECTORS);
    }

    /**
     * The block after the last one lying wholly inside sectors {@code [fromSector, fromSector + lengthSectors)}; no
     * block lies wholly inside when it is not above {@link #firstWholeBlock}.
     */
    public static int endWholeBlock(int fromSector, int lengthSectors) {
        return (fromSector + lengthSectors) / BLOCK_SECTORS;
    }

    /** Heap bytes a table for a cache of {@code dataBytes} of data buckets takes (for the launcher's sizing). */
    public static long heapBytesFor(long dataBytes) {
        long blocks = Math.ceilDiv(dataBytes, BLOCK_BYTES);
        return blocks * Integer.BYTES + Math.ceilDiv(blocks, Byte.SIZE);
    }

    /**
     * Records the CRCs of the whole blocks of {@code bytes} (from its position to its limit; both unchanged on return),
     * which were written to, or read and verified from, {@code bucket} at sector {@code offsetSectors}. Blocks the
     * range only partly covers get no entry; blocks that have one are skipped (same generation, same bytes), so a
     * verified span costs a second checksum pass only the first time.
     */
    public void learn(int bucket, int offsetSectors, ByteBuffer bytes) {
        int lengthSectors = bytes.remaining() / BlockDevice.SECTOR_BYTES;
        checkRange(bucket, offsetSectors, lengthSectors);
        int firstBlock = firstWholeBlock(offsetSectors);
        int endBlock = endWholeBlock(offsetSectors, lengthSectors);
        int position = bytes.position();
        int limit = bytes.limit();
        int base = bucket * blocksPerBucket;
        try {
            for (int block = known.nextClearBit(base + firstBlock) - base; block < endBlock;
                    block = known.nextClearBit(base + block + 1) - base) {
                int from = position + (block * BLOCK_SECTORS - offsetSectors) * BlockDevice.SECTOR_BYTES;
                bytes.limit(from + BLOCK_BYTES).position(from);
                checksum.reset();
                checksum.update(bytes);
                crcs[base + block] = (int) checksum.getValue();
                known.set(base + block);
            }
        } finally {
            bytes.limit(limit).position(position);
        }
    }

    /**
     * Records {@code count} block CRCs of {@code bucket} from block {@code firstBlock} on, computed by the caller from
     * the bytes of that many whole blocks (a front-end write checksums its buffer as it hands it to the device).
     */
    public void put(int bucket, int firstBlock, int count, int[] blockCrcs, int from) {
        Checks.check(bucket >= 0 && bucket < bucketCount, "bucket %s out of [0, %s)", bucket, bucketCount);
        Checks.check(firstBlock >= 0 && count >= 0 && (long) (firstBlock + count) * BLOCK_SECTORS <= bucketSectors,
                "blocks [%s, +%s) outside a bucket of %s sectors", firstBlock, count, bucketSectors);
        int base = bucket * blocksPerBucket + firstBlock;
        System.arraycopy(blockCrcs, from, crcs, base, count);
        known.set(base, base + count);
    }

    /**
     * Appends the CRCs of blocks {@code [firstBlock, firstBlock + count)} of {@code bucket}, which must all have one,
     * to {@code journal} (record type 9, docs/FORMAT.md §5.2).
     */
    public void journal(MetadataJournal journal, int bucket, int generation, int firstBlock, int count) {
        Checks.check(covers(bucket, firstBlock * BLOCK_SECTORS, count * BLOCK_SECTORS),
                "blocks [%s, +%s) of bucket %s have no CRC to journal", firstBlock, count, bucket);
        journal.appendBlockCrcs(bucket, generation, firstBlock, count, crcs, bucket * blocksPerBucket + firstBlock);
    }

    /** Whether every block touching sectors {@code [fromSector, fromSector + lengthSectors)} of {@code bucket} has a
     * CRC. */
    public boolean covers(int bucket, int fromSector, int lengthSectors) {
        checkRange(bucket, fromSector, lengthSectors);
        int base = bucket * blocksPerBucket;
        int firstBlock = base + fromSector / BLOCK_SECTORS;
        int endBlock = base + Math.ceilDiv(fromSector + lengthSectors, BLOCK_SECTORS);
        return known.nextClearBit(firstBlock) >= endBlock;
    }

    /** The CRC of block {@code block} of {@code bucket}; only meaningful where {@link #covers} said so. */
    public int crc(int bucket, int block) {
        return crcs[bucket * blocksPerBucket + block];
    }

    /** Blocks per bucket; block {@code b} of bucket {@code k} is {@code k * blocksPerBucket() + b} below. */
    public int blocksPerBucket() {
        return blocksPerBucket;
    }

    /** The first block at or after {@code fromBlock} (numbered across buckets) with a CRC, or -1 (checkpoints). */
    public int nextKnown(int fromBlock) {
        return fromBlock >= crcs.length ? -1 : known.nextSetBit(fromBlock);
    }

    /**
     * Copies the CRCs of the blocks from {@code block} (numbered across buckets) on that have one, in a row and
     * within its bucket, into {@code dst} (at most its length); returns how many (checkpoints).
     */
    public int copyRun(int block, int[] dst) {
        int bucketEnd = (block / blocksPerBucket + 1) * blocksPerBucket;
        int end = Math.min(Math.min(known.nextClearBit(block), bucketEnd), block + dst.length);
        System.arraycopy(crcs, block, dst, 0, Math.max(0, end - block));
        return Math.max(0, end - block);
    }

    /** Forgets every block of {@code bucket}: its generation was bumped, or it is about to be written again. */
    public void forget(int bucket) {
        Checks.check(bucket >= 0 && bucket < bucketCount, "bucket %s out of [0, %s)", bucket, bucketCount);
        int base = bucket * blocksPerBucket;
        known.clear(base, base + blocksPerBucket);
    }

    /** Whether any block of {@code bucket} has a CRC. */
    public boolean anyKnown(int bucket) {
        Checks.check(bucket >= 0 && bucket < bucketCount, "bucket %s out of [0, %s)", bucket, bucketCount);
        int base = bucket * blocksPerBucket;
        int next = known.nextSetBit(base);
        return next >= 0 && next < base + blocksPerBucket;
    }

    /** Blocks with a CRC now (for tests and statistics; walks the whole set). */
    public int knownBlocks() {
        return known.cardinality();
    }

    private void checkRange(int bucket, int fromSector, int lengthSectors) {
        Checks.check(bucket >= 0 && bucket < bucketCount, "bucket %s out of [0, %s)", bucket, bucketCount);
        Checks.check(fromSector >= 0 && lengthSectors > 0
                        && (long) fromSector + lengthSectors <= bucketSectors,
                "sectors [%s, +%s) outside a bucket", fromSector, lengthSectors);
    }
}
