package io.blockcache.sim;

import io.blockcache.device.BlockDevice;
import java.nio.ByteBuffer;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;

/**
 * Sparse contents of a simulated medium: 4 KiB pages allocated on first write, unwritten sectors read as
 * zero. Every sector remembers two numbers of the write that last landed on it: its <b>rank</b> (the device's
 * completion order: a write acknowledged later replaces one acknowledged earlier, whatever their issue order,
 * so two overlapping writes in flight together land in whichever order the device completes them) and its
 * <b>submit mark</b> (the completion order the device had reached when that write was submitted: every write
 * with a completion order up to the mark was acknowledged before it was submitted, so must land before it).
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
     * Lands every sector of {@code write} whose current rank is not above {@code rank}: the normal path, where
     * the later-completed write wins.
     */
    void write(PendingWrite write, long rank) {
        land(write, rank, null, false);
    }

    /**
     * Lands the sectors of a write that survives a power cut ({@code landed}: which of them, null for all).
     * A sector is replaced unless its current writer must come after this one (this write was acknowledged
     * before that one was submitted); between writes that were in flight together either order is allowed,
     * and the caller picks one.
     */
    void landAtCrash(PendingWrite write, long rank, BitSet landed) {
        land(write, rank, landed, true);
    }

    private void land(PendingWrite write, long rank, BitSet landed, boolean crash) {
        long firstSector = write.offsetBytes / BlockDevice.SECTOR_BYTES;
        int sectors = write.data.length / BlockDevice.SECTOR_BYTES;
        for (int i = 0; i < sectors; i++) {
            if (landed != null && !landed.get(i)) {
                continue;
            }
            long sector = firstSector + i;
            Page page = pages.computeIfAbsent(sector / SECTORS_PER_PAGE, k -> new Page());
            int slot = (int) (sector % SECTORS_PER_PAGE);
            boolean mustStayBehind = crash
                    ? write.completionOrder != 0 && write.completionOrder <= page.submitMark[slot]
                    : page.rank[slot] > rank;
            if (mustStayBehind) {
                continue;
            }
            page.rank[slot] = rank;
            page.submitMark[slot] = write.submitMark;
            System.arraycopy(write.data, i * BlockDevice.SECTOR_BYTES, page.data, slot * BlockDevice.SECTOR_BYTES,
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

    /** One 4 KiB page and, per sector, the rank and submit mark of the write that last landed on it. */
    private static final class Page {
        final byte[] data = new byte[PAGE_BYTES];
        final long[] rank = new long[SECTORS_PER_PAGE];
        final long[] submitMark = new long[SECTORS_PER_PAGE];

        Page copy() {
            Page p = new Page();
            System.arraycopy(data, 0, p.data, 0, PAGE_BYTES);
            System.arraycopy(rank, 0, p.rank, 0, SECTORS_PER_PAGE);
            System.arraycopy(submitMark, 0, p.submitMark, 0, SECTORS_PER_PAGE);
            return p;
        }
    }
}
