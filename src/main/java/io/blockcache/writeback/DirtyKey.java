package io.blockcache.writeback;

import io.blockcache.index.ExtentLocation;

/**
 * One dirty extent picked for writeback, exactly as the index held it when scanned.
 *
 * @param startSector first backing sector (volume-relative)
 * @param lengthSectors length in sectors
 * @param location packed cache location ({@link ExtentLocation}), dirty bit set
 * @param crc32c the CRC32C the index holds for it
 * @param crcOffsetInBucketSectors start of the bucket range the CRC covers
 * @param crcLengthSectors length of the range the CRC covers
 * @param agedSinceNs loop time from which the key is at most as old: its bucket's opening for dirty data
 */
record DirtyKey(long startSector, int lengthSectors, long location, int crc32c, int crcOffsetInBucketSectors,
                int crcLengthSectors, long agedSinceNs) {

    long endSector() {
        return startSector + lengthSectors;
    }

    int bucket() {
        return ExtentLocation.bucket(location);
    }

    int offsetInBucketSectors() {
        return ExtentLocation.offsetInBucketSectors(location);
    }

    int generation() {
        return ExtentLocation.generation(location);
    }

    boolean overlaps(long start, long lengthSectorsOther) {
        return startSector < start + lengthSectorsOther && start < endSector();
    }
}
