package io.blockcache.volume;

import io.blockcache.index.ExtentIndex;

/**
 * The immutable settings of one volume, validated here once.
 *
 * @param volumeId the volume's number in its cache set (0..15, docs/FORMAT.md)
 * @param sizeBytes the size clients see, a multiple of 512
 * @param backingDataOffsetBytes where the volume's data starts on the backing device (after its header)
 * @param mode the initial cache mode
 * @param fillOnReadMiss whether data read from the backing device is copied into the cache
 * @param extentMaxSectors the longest extent a write is cut into; shorter extents make a partial read's
 *     checksum verification cheaper (the whole extent is read to verify it). Default 256 sectors (128 KiB).
 */
public record VolumeConfig(int volumeId, long sizeBytes, long backingDataOffsetBytes, CacheMode mode,
                           boolean fillOnReadMiss, int extentMaxSectors) {
    /** 128 KiB: large enough for sequential writes to stay few extents, small enough for cheap verification. */
    public static final int EXTENT_MAX_SECTORS_DEFAULT = 256;
    /** The largest single request accepted: 64 MiB, twice the NBD reference server's 32 MiB maximum. */
    public static final int REQUEST_BYTES_MAX = 64 << 20;

    public VolumeConfig {
        if (volumeId < 0 || volumeId > 15) {
            throw new IllegalArgumentException("volumeId must be in [0, 15]: " + volumeId);
        }
        if (sizeBytes <= 0 || sizeBytes % 512 != 0) {
            throw new IllegalArgumentException("sizeBytes must be a positive multiple of 512: " + sizeBytes);
        }
        if (sizeBytes / 512 > ExtentIndex.SECTOR_LIMIT) {
            throw new IllegalArgumentException("volume of " + sizeBytes + " bytes is larger than the extent index's"
                    + " limit of 2^47 sectors (64 PiB)");
        }
        if (backingDataOffsetBytes < 0 || backingDataOffsetBytes % 512 != 0) {
            throw new IllegalArgumentException("backingDataOffsetBytes must be a non-negative multiple of 512: "
                    + backingDataOffsetBytes);
        }
        if (mode == null) {
            throw new IllegalArgumentException("mode must be set");
        }
        if (extentMaxSectors < 8 || extentMaxSectors > 16384) {
            throw new IllegalArgumentException("extentMaxSectors must be in [8, 16384]: " + extentMaxSectors);
        }
    }

    /** A write-back volume with read-miss fills and default extents. */
    public static VolumeConfig writeback(int volumeId, long sizeBytes, long backingDataOffsetBytes) {
        return new VolumeConfig(volumeId, sizeBytes, backingDataOffsetBytes, CacheMode.WRITEBACK, true,
                EXTENT_MAX_SECTORS_DEFAULT);
    }
}
