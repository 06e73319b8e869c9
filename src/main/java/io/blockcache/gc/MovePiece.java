package io.blockcache.gc;

/**
 * A whole extent the mark found in a moving-GC candidate bucket, as the index held it then: volume (position
 * in the GC's volume list), backing range, packed location, CRC32C and the bucket range that CRC covers.
 */
record MovePiece(int volume, long startSector, int lengthSectors, long location, int crc32c,
                 int crcOffsetInBucketSectors, int crcLengthSectors) {
}
