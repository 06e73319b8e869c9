package io.blockcache.bench;

/**
 * The parts of the export {@code bench nbd} uses, disjoint so that one row's writes never change what another
 * row reads. Every server gets the same layout. Full run (2 GiB export):
 *
 * <pre>
 * 0        256M       512M       768M       1G                                  2G
 * +--------+----------+----------+----------+-----------------------------------+
 * | HIT4K  | HIT64K   | HIT1M    | WRITES   | MISS                              |
 * +--------+----------+----------+----------+-----------------------------------+
 * </pre>
 *
 * {@code --quick} keeps the offsets and takes a quarter of each length.
 */
enum NbdRegion {
    /** Filled with 4 KiB random writes, then drained: every cached extent is its own CRC span. */
    HIT4K(0, 256L << 20, 4 << 10),
    /** Filled with 64 KiB random writes, then drained: a 4 KiB read is 1/16 of its extent's CRC span. */
    HIT64K(256L << 20, 256L << 20, 64 << 10),
    /** Filled with 1 MiB random writes (cut into 128 KiB extents), then drained. */
    HIT1M(512L << 20, 256L << 20, 1 << 20),
    /** Where the write rows write (4 KiB random and 1 MiB sequential). */
    WRITES(768L << 20, 256L << 20, 0),
    /**
     * Written with 1 MiB sequential writes: blockcache sends a sequential stream past its cutoff (4 MiB) around
     * the cache, so reads here miss (and fill, as in production).
     */
    MISS(1L << 30, 1L << 30, 1 << 20);

    private final long offsetBytes;
    private final long lengthBytesFull;
    private final int fillBlockBytes;

    NbdRegion(long offsetBytes, long lengthBytesFull, int fillBlockBytes) {
        this.offsetBytes = offsetBytes;
        this.lengthBytesFull = lengthBytesFull;
        this.fillBlockBytes = fillBlockBytes;
    }

    /** Byte offset in the export (the same in full and quick runs). */
    long offsetBytes() {
        return offsetBytes;
    }

    /** Length in bytes: full, or a quarter with {@code --quick}. */
    long lengthBytes(boolean quick) {
        return quick ? lengthBytesFull / 4 : lengthBytesFull;
    }

    /** Block size of the fill that prepares this region; 0 = not filled. */
    int fillBlockBytes() {
        return fillBlockBytes;
    }
}
