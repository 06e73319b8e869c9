package io.blockcache.sim;

import io.blockcache.device.BlockDevice;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Self-identifying sector contents for model and crash tests: write {@code w} fills sector {@code s} with a
 * pattern derived from {@code (w, s)}, so reading any 512-byte sector tells which write it came from.
 *
 * <pre>
 *   bytes 0..7    write id w (> 0), little endian
 *   bytes 8..15   sector number s, little endian
 *   bytes 16..511 62 longs of SplitMix64 seeded from (w, s)
 * </pre>
 *
 * <p>All zeroes means "never written or zeroed" ({@link #ZERO}). Anything else that does not match its own
 * header exactly (a sector mixing two writes, a sector written to the wrong place, random garbage) decodes as
 * {@link #TORN}. Pure functions; any thread.
 */
public final class SectorPattern {
    /** The value of an all-zero sector. */
    public static final long ZERO = 0;
    /** The value of a sector that is not exactly one write's pattern for this sector. */
    public static final long TORN = -1;

    private static final int HEADER_BYTES = 16;

    private SectorPattern() {
    }

    /** Fills the sector at {@code dst}'s position with the pattern of write {@code writeId} for {@code sector}. */
    public static void fill(long writeId, long sector, ByteBuffer dst) {
        ByteBuffer out = dst.slice(dst.position(), BlockDevice.SECTOR_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        out.putLong(writeId).putLong(sector);
        long state = seed(writeId, sector);
        while (out.hasRemaining()) {
            state += 0x9E3779B97F4A7C15L;
            out.putLong(mix(state));
        }
        dst.position(dst.position() + BlockDevice.SECTOR_BYTES);
    }

    /**
     * Decodes the sector at {@code src}'s position (advancing it by 512) that was read from {@code sector}.
     *
     * @return the write id, {@link #ZERO} or {@link #TORN}
     */
    public static long decode(ByteBuffer src, long sector) {
        ByteBuffer in = src.slice(src.position(), BlockDevice.SECTOR_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        src.position(src.position() + BlockDevice.SECTOR_BYTES);
        long writeId = in.getLong(0);
        long storedSector = in.getLong(8);
        if (writeId == 0 && storedSector == 0) {
            return allZero(in) ? ZERO : TORN;
        }
        if (writeId <= 0 || storedSector != sector) {
            return TORN;
        }
        long state = seed(writeId, sector);
        for (int at = HEADER_BYTES; at < BlockDevice.SECTOR_BYTES; at += Long.BYTES) {
            state += 0x9E3779B97F4A7C15L;
            if (in.getLong(at) != mix(state)) {
                return TORN;
            }
        }
        return writeId;
    }

    /** Describes a decoded value for failure messages. */
    public static String describe(long value) {
        return value == ZERO ? "zero" : value == TORN ? "torn/foreign" : "w" + value;
    }

    private static boolean allZero(ByteBuffer in) {
        for (int at = 0; at < BlockDevice.SECTOR_BYTES; at += Long.BYTES) {
            if (in.getLong(at) != 0) {
                return false;
            }
        }
        return true;
    }

    private static long seed(long writeId, long sector) {
        return mix(writeId * 0xD1B54A32D192ED03L ^ sector);
    }

    /** SplitMix64's finaliser (Steele, Lea, Flood 2014): cheap and well mixed. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
