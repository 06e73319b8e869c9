package io.blockcache.format;

import io.blockcache.loop.Checks;

/**
 * Where a backing device's damage map lives and how coarse it is: the blocks of {@link DamageMapBlock}, two
 * copies each, packed right after the {@link BackingHeader} in the reserved area before the volume's data.
 *
 * <pre>
 *  backing device
 *  0        4096      8192      12288     16384          dataOffsetBytes (1 MiB)
 *  +--------+---------+---------+---------+---------+----+----------------------
 *  | header | block 0 | block 0 | block 1 | block 1 | .. | volume byte 0 ...
 *  |        | copy A  | copy B  | copy A  | copy B  |    |
 *  +--------+---------+---------+---------+---------+----+----------------------
 *  copy c of block b at 4096 + (2b + c) * 4096
 * </pre>
 *
 * <p>Region size: the smallest power of two of at least {@link #REGION_BYTES_MIN} whose regions fit in the
 * blocks the reserved area holds. With the default 1 MiB data offset there is room for 127 blocks of
 * {@link DamageMapBlock#REGIONS_PER_BLOCK} regions, so 1 MiB regions up to 3.9 TiB, 2 MiB up to 7.8 TiB, and so
 * on. Why 1 MiB at least: a region is marked once on the backing device before its first dirty write is
 * acknowledged, so a smaller region costs more backing writes (a random 4 KiB workload pays one per region it
 * touches) while a larger one lists more innocent data as stale after a cache loss; 1 MiB is also the largest
 * writeback run, so one region is cleaned by about one run.
 *
 * @param regionBytes bytes of volume one bit stands for, a power of two
 * @param regionCount regions that cover the volume
 * @param blockCount map blocks holding them, at least 1
 */
public record DamageMapGeometry(long regionBytes, long regionCount, int blockCount) {
    /** The finest region: 1 MiB (see the class comment). */
    public static final long REGION_BYTES_MIN = 1L << 20;
    /** The map starts right after the backing header. */
    public static final long FIRST_BLOCK_OFFSET_BYTES = BackingHeader.BYTES;
    /** Two copies per block, written alternately, so a torn write always leaves the previous version. */
    public static final int COPIES = 2;

    /** Validates the relations between the fields. */
    public DamageMapGeometry {
        Checks.require(regionBytes >= REGION_BYTES_MIN && ByteLayout.isPowerOfTwo(regionBytes),
                "regionBytes must be a power of two of at least %d, got %d", REGION_BYTES_MIN, regionBytes);
        Checks.require(blockCount >= 1 && regionCount >= 1
                && regionCount <= (long) blockCount * DamageMapBlock.REGIONS_PER_BLOCK,
                "%d regions do not fit in %d blocks", regionCount, blockCount);
    }

    /**
     * The geometry of the map of a volume of {@code volumeSizeBytes} whose data starts at {@code dataOffsetBytes},
     * or null if the reserved area before the data has no room for a single block pair. The map's area ends at the
     * data or at {@link BackingHeader#LOG_OFFSET_BYTES}, whichever comes first: beyond that MiB a device may hold a
     * backing log (docs/FORMAT.md §4.4), so the map's place never depends on the log's size.
     */
    public static DamageMapGeometry of(long dataOffsetBytes, long volumeSizeBytes) {
        long areaEndBytes = Math.min(dataOffsetBytes, BackingHeader.LOG_OFFSET_BYTES);
        long blocksMax = (areaEndBytes - FIRST_BLOCK_OFFSET_BYTES) / ((long) COPIES * ByteLayout.BLOCK_BYTES);
        if (blocksMax < 1 || volumeSizeBytes <= 0) {
            return null;
        }
        long regionBytes = REGION_BYTES_MIN;
        while (true) {
            long regions = (volumeSizeBytes + regionBytes - 1) / regionBytes;
            long blocks = (regions + DamageMapBlock.REGIONS_PER_BLOCK - 1) / DamageMapBlock.REGIONS_PER_BLOCK;
            if (blocks <= blocksMax) {
                return new DamageMapGeometry(regionBytes, regions, (int) blocks);
            }
            regionBytes <<= 1;
        }
    }

    /** Byte offset on the backing device of copy {@code copy} (0 = A, 1 = B) of block {@code block}. */
    public long copyOffsetBytes(int block, int copy) {
        Checks.require(block >= 0 && block < blockCount && copy >= 0 && copy < COPIES,
                "no copy %d of block %d in a map of %d blocks", copy, block, blockCount);
        return FIRST_BLOCK_OFFSET_BYTES + ((long) COPIES * block + copy) * ByteLayout.BLOCK_BYTES;
    }

    /** Bytes from {@link #FIRST_BLOCK_OFFSET_BYTES} to the end of the last copy. */
    public int areaBytes() {
        return COPIES * blockCount * ByteLayout.BLOCK_BYTES;
    }

    /** Sectors (512 B) of volume one region stands for. */
    public long regionSectors() {
        return regionBytes / ByteLayout.SECTOR_BYTES;
    }

    /** Regions held by block {@code block} (the last block may be partly used). */
    public int regionsInBlock(int block) {
        long first = (long) block * DamageMapBlock.REGIONS_PER_BLOCK;
        return (int) Math.min(DamageMapBlock.REGIONS_PER_BLOCK, regionCount - first);
    }
}
