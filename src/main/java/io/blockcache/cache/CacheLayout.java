package io.blockcache.cache;

import io.blockcache.loop.Checks;
import io.blockcache.device.BlockDevice;

/**
 * Where buckets are on the cache device (docs/FORMAT.md): bucket {@code i} starts at
 * {@code dataStartBytes + i * bucketSizeBytes}.
 *
 * @param dataStartBytes byte offset of bucket 0
 * @param bucketSizeBytes bucket size in bytes, a power of two
 * @param bucketCount number of buckets
 */
public record CacheLayout(long dataStartBytes, int bucketSizeBytes, int bucketCount) {
    public CacheLayout {
        Checks.check(dataStartBytes >= 0 && dataStartBytes % BlockDevice.SECTOR_BYTES == 0,
                "dataStartBytes must be a non-negative multiple of 512: %s", dataStartBytes);
        Checks.check(bucketSizeBytes > 0 && Integer.bitCount(bucketSizeBytes) == 1,
                "bucketSizeBytes must be a power of two: %s", bucketSizeBytes);
        Checks.check(bucketCount > 0, "bucketCount must be positive: %s", bucketCount);
    }

    /** Bucket size in sectors. */
    public int bucketSectors() {
        return bucketSizeBytes / BlockDevice.SECTOR_BYTES;
    }

    /** Byte offset on the cache device of sector {@code offsetSectors} of {@code bucket}. */
    public long byteOffset(int bucket, int offsetSectors) {
        Checks.check(bucket >= 0 && bucket < bucketCount, "bucket %s out of range [0, %s)", bucket, bucketCount);
        Checks.check(offsetSectors >= 0 && offsetSectors <= bucketSectors(), "offset %s outside a bucket of %s",
                offsetSectors, bucketSectors());
        return dataStartBytes + (long) bucket * bucketSizeBytes + (long) offsetSectors * BlockDevice.SECTOR_BYTES;
    }

    /** Bytes of the cache device this layout needs. */
    public long requiredDeviceBytes() {
        return dataStartBytes + (long) bucketCount * bucketSizeBytes;
    }
}
