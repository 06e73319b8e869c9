package io.blockcache.sim;

import io.blockcache.device.BlockDevice;
import java.nio.ByteBuffer;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;

/**
 * Sparse contents of a simulated medium: 4 KiB pages allocated on first write, unwritten sectors read as
 * zero. Every sector remembers the issue sequence of the write that last landed on it, and a write never
 * replaces a newer one; so the contents do not depend on the order in which overlapping writes land
 * (completion order, destage order, crash-image order all agree on "newest issued wins").
 *
 * <p>Offsets are in bytes and must be multiples of {@link BlockDevice#SECTOR_BYTES} (the caller checks).
 * Thread rule: the simulation driver's thread.
 */
final class SectorStore {
    /** Page size: 4 KiB, the usual logical block, keeps per-page overhead small against the data. */
    private static final int PAGE_BYTES = 4096;
    private static final int SECTORS_PER_PAGE = PAGE_BYTES / BlockDevice.SECTOR_BYTES;

    // Keyed by page number; only looked up, never iterated where order could matter (copy() is order-free).
    private final Map<Long, Page> pages = new HashMap<>();

    /** Copies {@code dst.remaining()} bytes starting at {@code offsetBytes} into {@code dst}. */
    void read(long offsetBytes, ByteBuffer dst) {
        long sector = offsetBytes / BlockDevice.SECTOR_BYTES;
        byte[] zeros = null;
        while (dst.remaining() > 0) {
            Page page = pages.get(sector / SECTORS_PER_PAGE);
            int inPage = (int) (sector % SECTORS_PER_PAGE) * BlockDevice.SECTOR_BYTES;
            int bytes = Math.min(dst.remaining(), BlockDevice.SECTOR_BYTES);
            if (page == null) {
                zeros = zeros != null ? zeros : new byte[BlockDevice.SECTOR_BYTES];
                dst.put(zeros, 0, bytes);
            } else {
                dst.put(page.data, inPage, bytes);
            }
            sector++;
        }
    }

    /**
     * Lands sectors of {@code data} (whose first byte belongs at {@code offsetBytes}) issued with
     * {@code sequence}. Sector {@code i} of the write lands only if {@code landed} is null or has bit
     * {@code i}, and only if no newer write already landed there.
     */
    void write(long offsetBytes, byte[] data, long sequence, BitSet landed) {
        long firstSector = offsetBytes / BlockDevice.SECTOR_BYTES;
        int sectors = data.length / BlockDevice.SECTOR_BYTES;
        for (int i = 0; i < sectors; i++) {
            if (landed != null && !landed.get(i)) {
                continue;
            }
            long sector = firstSector + i;
            Page page = pages.computeIfAbsent(sector / SECTORS_PER_PAGE, k -> new Page());
            int slot = (int) (sector % SECTORS_PER_PAGE);
            if (page.sequence[slot] > sequence) {
                continue; // a newer write already landed here
            }
            page.sequence[slot] = sequence;
            System.arraycopy(data, i * BlockDevice.SECTOR_BYTES, page.data, slot * BlockDevice.SECTOR_BYTES,
                    BlockDevice.SECTOR_BYTES);
        }
    }

    /** Returns an independent deep copy. */
    SectorStore copy() {
        SectorStore copy = new SectorStore();
        for (Map.Entry<Long, Page> e : pages.entrySet()) {
            copy.pages.put(e.getKey(), e.getValue().copy());
        }
        return copy;
    }

    /** One 4 KiB page and the issue sequence of the write that last landed on each of its sectors. */
    private static final class Page {
        final byte[] data = new byte[PAGE_BYTES];
        final long[] sequence = new long[SECTORS_PER_PAGE];

        Page copy() {
            Page p = new Page();
            System.arraycopy(data, 0, p.data, 0, PAGE_BYTES);
            System.arraycopy(sequence, 0, p.sequence, 0, SECTORS_PER_PAGE);
            return p;
        }
    }
}
