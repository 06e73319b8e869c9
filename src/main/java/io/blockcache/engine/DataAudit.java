package io.blockcache.engine;

import io.blockcache.cache.BlockChecksums;
import io.blockcache.device.BlockDevice;
import io.blockcache.format.CacheSuperblock;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.zip.CRC32C;

/**
 * Reads the data of every live extent and checks it against the extent's CRC32C, and each 4 KiB block of it that
 * has a CRC of its own against that one (docs/FORMAT.md §9), as cache reads would.
 * Reads each bucket that holds live extents once, whole, in bucket order, one read in flight: an offline
 * check wants a sequential scan, not speed at any price.
 */
final class DataAudit {
    private final BlockDevice cacheDevice;
    private final CacheSuperblock superblock;
    private final TreeMap<Integer, List<IndexAudit.Span>> byBucket = new TreeMap<>();
    private final Problems problems;
    private final Consumer<CacheReport.DataStatus> done;
    private final List<CacheReport.CrcMismatch> mismatches = new ArrayList<>();
    private final BlockChecksums blockCrcs;
    /** Blocks of the current bucket checked already (spans may share blocks). */
    private final BitSet blocksChecked = new BitSet();
    private long spansChecked;
    private long blockCrcsChecked;
    private long bytesRead;

    private DataAudit(BlockDevice cacheDevice, CacheSuperblock superblock, List<IndexAudit.Span> spans,
                      BlockChecksums blockCrcs, Problems problems, Consumer<CacheReport.DataStatus> done) {
        this.cacheDevice = cacheDevice;
        this.blockCrcs = blockCrcs;
        this.superblock = superblock;
        this.problems = problems;
        this.done = done;
        for (IndexAudit.Span span : spans) {
            byBucket.computeIfAbsent(span.bucket(), bucket -> new ArrayList<>()).add(span);
        }
    }

    /**
     * Checks {@code spans}, and the blocks of them that {@code blockCrcs} has a CRC for; records each mismatch in
     * {@code problems} and in the status given to {@code done}.
     */
    static void run(BlockDevice cacheDevice, CacheSuperblock superblock, List<IndexAudit.Span> spans,
                    BlockChecksums blockCrcs, Problems problems, Consumer<CacheReport.DataStatus> done) {
        new DataAudit(cacheDevice, superblock, spans, blockCrcs, problems, done).next(-1);
    }

    private void next(int afterBucket) {
        Integer bucket = byBucket.higherKey(afterBucket);
        if (bucket == null) {
            done.accept(new CacheReport.DataStatus(spansChecked, blockCrcsChecked, bytesRead, mismatches));
            return;
        }
        DeviceBytes.read(cacheDevice, superblock.bucketOffsetBytes(bucket), superblock.bucketSizeBytes(), read -> {
            if (!read.isOk()) {
                problems.add("data of bucket " + bucket + " could not be read: " + read.error());
            } else {
                bytesRead += read.value().length;
                verify(read.value(), byBucket.get(bucket));
            }
            next(bucket);
        });
    }

    private void verify(byte[] bucketBytes, List<IndexAudit.Span> spans) {
        blocksChecked.clear();
        for (IndexAudit.Span span : spans) {
            verifyBlocks(bucketBytes, span);
            CRC32C crc = new CRC32C();
            crc.update(bucketBytes, span.crcOffsetInBucketSectors() * BlockDevice.SECTOR_BYTES,
                    span.crcLengthSectors() * BlockDevice.SECTOR_BYTES);
            spansChecked++;
            if ((int) crc.getValue() != span.crc32c()) {
                mismatches.add(new CacheReport.CrcMismatch(span.bucket(), span.crcOffsetInBucketSectors(),
                        span.crcLengthSectors(), span.volumeName(), span.startSector(), span.lengthSectors()));
                problems.add("CRC32C mismatch in bucket " + span.bucket() + " sectors ["
                        + span.crcOffsetInBucketSectors() + ", +" + span.crcLengthSectors() + "): volume \""
                        + span.volumeName() + "\" sectors ["
                        + span.startSector() + ", " + (span.startSector() + span.lengthSectors()) + ")");
            }
        }
    }

    /** Checks each whole block of {@code span} that has a CRC of its own and was not checked for another span. */
    private void verifyBlocks(byte[] bucketBytes, IndexAudit.Span span) {
        int firstBlock = BlockChecksums.firstWholeBlock(span.crcOffsetInBucketSectors());
        int endBlock = BlockChecksums.endWholeBlock(span.crcOffsetInBucketSectors(), span.crcLengthSectors());
        for (int block = firstBlock; block < endBlock; block++) {
            if (blocksChecked.get(block)
                    || !blockCrcs.covers(span.bucket(), block * BlockChecksums.BLOCK_SECTORS, 1)) {
                continue;
            }
            blocksChecked.set(block);
            blockCrcsChecked++;
            CRC32C crc = new CRC32C();
            crc.update(bucketBytes, block * BlockChecksums.BLOCK_BYTES, BlockChecksums.BLOCK_BYTES);
            if ((int) crc.getValue() != blockCrcs.crc(span.bucket(), block)) {
                mismatches.add(new CacheReport.CrcMismatch(span.bucket(), block * BlockChecksums.BLOCK_SECTORS,
                        BlockChecksums.BLOCK_SECTORS, span.volumeName(), span.startSector(), span.lengthSectors()));
                problems.add("block CRC32C mismatch in bucket " + span.bucket() + " block " + block + " (sectors ["
                        + block * BlockChecksums.BLOCK_SECTORS + ", +" + BlockChecksums.BLOCK_SECTORS + ")): volume \""
                        + span.volumeName() + "\" sectors [" + span.startSector() + ", "
                        + (span.startSector() + span.lengthSectors()) + ")");
            }
        }
    }
}
