package io.blockcache.sim;

import io.blockcache.device.BlockDevice;

/**
 * One request of a model-test workload, in bytes on the device under test.
 *
 * @param kind what to do
 * @param offsetBytes first byte, a multiple of 512 (0 for a flush)
 * @param lengthBytes length, a multiple of 512 (0 for a flush)
 * @param fua for writes and write-zeroes: durable when acknowledged
 */
public record ModelOp(Kind kind, long offsetBytes, long lengthBytes, boolean fua) {
    /** The kinds of request a workload mixes. */
    public enum Kind { WRITE, WRITE_ZEROES, TRIM, READ, FLUSH }

    /** First sector. */
    public long startSector() {
        return offsetBytes / BlockDevice.SECTOR_BYTES;
    }

    /** Length in sectors. */
    public int lengthSectors() {
        return (int) (lengthBytes / BlockDevice.SECTOR_BYTES);
    }

    /** True if the request changes contents (write, write-zeroes, trim). */
    public boolean mutates() {
        return kind == Kind.WRITE || kind == Kind.WRITE_ZEROES || kind == Kind.TRIM;
    }

    /** True if this and {@code other} touch a common sector (flushes touch none). */
    public boolean overlaps(ModelOp other) {
        return kind != Kind.FLUSH && other.kind != Kind.FLUSH && lengthBytes > 0 && other.lengthBytes > 0
                && offsetBytes < other.offsetBytes + other.lengthBytes
                && other.offsetBytes < offsetBytes + lengthBytes;
    }

    @Override
    public String toString() {
        return kind == Kind.FLUSH ? "FLUSH" : kind + (fua ? "+FUA" : "") + " sectors [" + startSector() + ", +"
                + lengthSectors() + ")";
    }
}
