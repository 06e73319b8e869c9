package io.blockcache.format;

import java.util.zip.CRC32C;

/**
 * The {@code checkpointCrc} of a {@link JournalRecord.CheckpointDone}: CRC32C over the chunk CRCs (each as
 * 4 little-endian bytes) in chunk order. It binds the set and order of chunks, so a stale chunk left in a
 * reused bucket cannot pass for part of the checkpoint.
 */
public final class CheckpointDigest {
    private final CRC32C crc = new CRC32C();
    private int chunkCount;

    /** Adds the next chunk's CRC. */
    public void add(int chunkCrc) {
        crc.update(chunkCrc & 0xff);
        crc.update((chunkCrc >>> 8) & 0xff);
        crc.update((chunkCrc >>> 16) & 0xff);
        crc.update((chunkCrc >>> 24) & 0xff);
        chunkCount++;
    }

    /** Number of chunks added. */
    public int chunkCount() {
        return chunkCount;
    }

    /** The digest so far. */
    public int value() {
        return (int) crc.getValue();
    }
}
