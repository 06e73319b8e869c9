package io.blockcache.engine;

import io.blockcache.device.BlockDevice;
import io.blockcache.format.CacheSuperblock;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.zip.CRC32C;

/**
 * Reads the data of every live extent and checks it against the extent's CRC32C, as a cache read would.
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
    private long spansChecked;
    private long bytesRead;

    private DataAudit(BlockDevice cacheDevice, CacheSuperblock superblock, List<IndexAudit.Span> spans,
                      Problems problems, Consumer<CacheReport.DataStatus> done) {
        this.cacheDevice = cacheDevice;
        this.superblock = superblock;
        this.problems = problems;
        this.done = done;
        for (IndexAudit.Span span : spans) {
            byBucket.computeIfAbsent(span.bucket(), bucket -> new ArrayList<>()).add(span);
        }
    }

    /** Checks {@code spans}; records each mismatch in {@code problems} and in the status given to {@code done}. */
    static void run(BlockDevice cacheDevice, CacheSuperblock superblock, List<IndexAudit.Span> spans,
                    Problems problems, Consumer<CacheReport.DataStatus> done) {
        new DataAudit(cacheDevice, superblock, spans, problems, done).next(-1);
    }

    private void next(int afterBucket) {
        Integer bucket = byBucket.higherKey(afterBucket);
        if (bucket == null) {
            done.accept(new CacheReport.DataStatus(spansChecked, bytesRead, mismatches));
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
        for (IndexAudit.Span span : spans) {
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
}
