package io.blockcache.nbd;

import io.blockcache.device.BlockDevice;

/**
 * How a byte range {@code [offsetBytes, offsetBytes + lengthBytes)} of any alignment splits into sector
 * pieces: an optional partial head sector, an aligned middle of whole sectors, and an optional partial tail
 * sector. Partial sectors need read-modify-write; the middle goes to the volume as it is. A range inside one
 * sector is a head piece only. Pure value: any thread.
 *
 * @param offsetBytes first byte of the range
 * @param lengthBytes bytes in the range, {@code > 0}
 */
record SectorSpan(long offsetBytes, long lengthBytes) {
    static final int SECTOR_BYTES = BlockDevice.SECTOR_BYTES;

    SectorSpan {
        if (offsetBytes < 0 || lengthBytes <= 0 || offsetBytes > Long.MAX_VALUE - lengthBytes - SECTOR_BYTES) {
            throw new IllegalArgumentException("bad byte range [" + offsetBytes + ", +" + lengthBytes + ")");
        }
    }

    long endBytes() {
        return offsetBytes + lengthBytes;
    }

    /** First sector the range touches. */
    long firstSector() {
        return offsetBytes / SECTOR_BYTES;
    }

    /** One past the last sector the range touches. */
    long endSector() {
        return (endBytes() + SECTOR_BYTES - 1) / SECTOR_BYTES;
    }

    /** True if both ends fall on sector boundaries: no read-modify-write needed. */
    boolean aligned() {
        return offsetBytes % SECTOR_BYTES == 0 && lengthBytes % SECTOR_BYTES == 0;
    }

    /** True if the first sector is only partly covered. */
    boolean hasHead() {
        return offsetBytes % SECTOR_BYTES != 0 || lengthBytes < SECTOR_BYTES;
    }

    /** Bytes of the range inside the head sector (0 if there is no head piece). */
    long headBytes() {
        return hasHead() ? Math.min(endBytes(), (firstSector() + 1) * SECTOR_BYTES) - offsetBytes : 0;
    }

    /** True if the last sector is partly covered and is not the head sector. */
    boolean hasTail() {
        return endBytes() % SECTOR_BYTES != 0 && tailSector() != firstSector();
    }

    /** The sector holding the last byte (the tail sector when {@link #hasTail()}). */
    long tailSector() {
        return (endBytes() - 1) / SECTOR_BYTES;
    }

    /** Bytes of the range inside the tail sector (0 if there is no tail piece). */
    long tailBytes() {
        return hasTail() ? endBytes() - tailSector() * SECTOR_BYTES : 0;
    }

    /** First byte of the whole-sector middle. */
    long middleOffsetBytes() {
        return offsetBytes + headBytes();
    }

    /** Bytes of the whole-sector middle (a multiple of 512, possibly 0). */
    long middleBytes() {
        return lengthBytes - headBytes() - tailBytes();
    }
}
