package io.blockcache.index;

/**
 * Packs into one {@code int} which bucket range an extent's CRC32C covers, relative to the extent.
 *
 * <p>When an overwrite cuts an extent, the surviving piece keeps the original CRC, which covers the
 * original range in the bucket, not the piece. Storing how far the piece starts into the original
 * ({@code cutHeadSectors}) and the original length lets a reader still verify the piece: it reads the
 * original range {@code [offsetInBucket - cutHead, + originalLength)} from the bucket (intact: a bucket
 * is not rewritten before its generation is bumped) and checks that. Costs 4 bytes per extent.
 *
 * <pre>
 *  31              16 15               0
 * +------------------+------------------+
 * | original length  | cut head sectors |
 * +------------------+------------------+
 * </pre>
 */
final class CrcSpan {
    private CrcSpan() {}

    static int pack(int cutHeadSectors, int originalLengthSectors) {
        return (originalLengthSectors << 16) | cutHeadSectors;
    }

    static int whole(int lengthSectors) {
        return pack(0, lengthSectors);
    }

    static int cutHeadSectors(int span) {
        return span & 0xFFFF;
    }

    static int originalLengthSectors(int span) {
        return span >>> 16;
    }

    /** The span of a piece that starts {@code deltaSectors} further into the same original extent. */
    static int shifted(int span, int deltaSectors) {
        return pack(cutHeadSectors(span) + deltaSectors, originalLengthSectors(span));
    }
}
