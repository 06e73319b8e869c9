package io.blockcache.cache;

import io.blockcache.loop.Checks;
import java.util.BitSet;

/**
 * Which 4 KiB blocks of the cache device were read back and matched their extent's CRC32C since their bucket was
 * last (re)written: one bit per block, kept in memory only. It lets a read of part of a larger checksummed span
 * (a 4 KiB read of data written by a 64 KiB or 1 MiB write) read just the blocks it needs once the whole span has
 * been read and verified once, instead of reading and checksumming the whole span every time.
 *
 * <p><b>Why a bit stays true.</b> Data buckets are append-only: while a bucket keeps its generation no block in it
 * is written twice, and it is rewritten only after its generation bump (docs/FORMAT.md §7 rule 2). The allocator
 * forgets a bucket's bits at that bump (and again when it hands the bucket out), so a bit never outlives the
 * bytes it vouches for. A block is marked only if it lies wholly inside the verified span (a block shared with
 * another write, after sub-4 KiB writes, is never marked). The bits are not persisted: after an open every span
 * is verified again on its first read.
 *
 * <p><b>What it gives up</b> (docs/FORMAT.md §7 rule 12): damage that happens on the device <em>after</em> a block
 * was verified — bit rot, a misdirected write by the device — is not caught by later partial reads of that block
 * until its bucket is reused or the cache is reopened. Whole-span reads and writeback always verify.
 *
 * <p>Memory: one bit per 4 KiB of data buckets (32 KiB per GiB of cache, 32 MiB per TiB).
 *
 * <p>Thread rule: owned by the cache's loop thread.
 */
public final class VerifiedBlocks {
    /** Sectors per tracked block: 4 KiB (docs/FORMAT.md §1: a block is 4096 B). */
    static final int BLOCK_SECTORS = 8;

    private final int blocksPerBucket;
    private final int bucketSectors;
    private final int bucketCount;
    private final BitSet verified;

    /**
     * Tracks {@code bucketCount} buckets of {@code bucketSectors} sectors. Real buckets are whole 4 KiB blocks
     * (docs/FORMAT.md §2); a bucket that is not (small test geometries) has a last, partial block that is never
     * marked, so reads touching it always verify.
     */
    public VerifiedBlocks(int bucketCount, int bucketSectors) {
        Checks.check((long) bucketCount * Math.ceilDiv(bucketSectors, BLOCK_SECTORS) <= Integer.MAX_VALUE,
                "%s buckets of %s sectors exceed 2^31 blocks (8 TiB)", bucketCount, bucketSectors);
        this.bucketCount = bucketCount;
        this.bucketSectors = bucketSectors;
        this.blocksPerBucket = Math.ceilDiv(bucketSectors, BLOCK_SECTORS);
        // Allocated once, whole: no growth (and no allocation) on the read path.
        this.verified = new BitSet(bucketCount * blocksPerBucket);
    }

    /** Records that sectors {@code [fromSector, fromSector + lengthSectors)} of {@code bucket} matched their CRC. */
    public void markVerified(int bucket, int fromSector, int lengthSectors) {
        checkRange(bucket, fromSector, lengthSectors);
        int firstBlock = Math.ceilDiv(fromSector, BLOCK_SECTORS); // only blocks wholly inside the span
        int endBlock = (fromSector + lengthSectors) / BLOCK_SECTORS;
        if (firstBlock < endBlock) {
            int base = bucket * blocksPerBucket;
            verified.set(base + firstBlock, base + endBlock);
        }
    }

    /** Whether every block touching sectors {@code [fromSector, fromSector + lengthSectors)} of {@code bucket} is
     * marked verified. */
    public boolean isVerified(int bucket, int fromSector, int lengthSectors) {
        checkRange(bucket, fromSector, lengthSectors);
        int base = bucket * blocksPerBucket;
        int firstBlock = base + fromSector / BLOCK_SECTORS;
        int endBlock = base + Math.ceilDiv(fromSector + lengthSectors, BLOCK_SECTORS);
        return verified.nextClearBit(firstBlock) >= endBlock;
    }

    /** Forgets every block of {@code bucket}: its generation was bumped, or it is about to be written again. */
    public void forget(int bucket) {
        Checks.check(bucket >= 0 && bucket < bucketCount, "bucket %s out of [0, %s)", bucket, bucketCount);
        int base = bucket * blocksPerBucket;
        verified.clear(base, base + blocksPerBucket);
    }

    /** Blocks marked verified now (for tests and statistics; walks the whole set). */
    public int verifiedBlocks() {
        return verified.cardinality();
    }

    private void checkRange(int bucket, int fromSector, int lengthSectors) {
        Checks.check(bucket >= 0 && bucket < bucketCount, "bucket %s out of [0, %s)", bucket, bucketCount);
        Checks.check(fromSector >= 0 && lengthSectors > 0
                        && (long) fromSector + lengthSectors <= bucketSectors,
                "sectors [%s, +%s) outside a bucket", fromSector, lengthSectors);
    }
}
