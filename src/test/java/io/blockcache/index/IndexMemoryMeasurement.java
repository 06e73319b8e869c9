package io.blockcache.index;

import io.blockcache.loop.Prng;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;

/**
 * Measures heap bytes per extent (not a test): builds indexes of N extents, sequentially and in random
 * order, and divides the heap growth after full GCs by N. Started by {@code scripts/jmh-index.sh memory}.
 */
public final class IndexMemoryMeasurement {
    private static final int EXTENT_SECTORS = 8;

    private IndexMemoryMeasurement() {}

    public static void main(String[] args) {
        int extents = args.length > 0 ? Integer.parseInt(args[0]) : 2_000_000;
        System.out.printf("extents=%d, leaf capacity=%d, inner capacity=%d%n", extents,
                ExtentIndex.LEAF_CAPACITY_DEFAULT, ExtentIndex.INNER_CAPACITY_DEFAULT);
        measure("sequential inserts", extents, false);
        measure("random-order inserts", extents, true);
    }

    private static void measure(String name, int extents, boolean randomOrder) {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long before = settledHeapBytes(memory);
        ExtentIndex index = new ExtentIndex();
        Prng prng = new Prng(1);
        // Random order: a random permutation of the same slots (Fisher-Yates), so both runs store N extents.
        int[] order = new int[extents];
        for (int i = 0; i < extents; i++) {
            order[i] = i;
        }
        if (randomOrder) {
            for (int i = extents - 1; i > 0; i--) {
                int j = prng.nextInt(i + 1);
                int swap = order[i];
                order[i] = order[j];
                order[j] = swap;
            }
        }
        long orderBytes = 4L * extents + 16;
        for (int i = 0; i < extents; i++) {
            long slot = order[i];
            index.insert(slot * EXTENT_SECTORS * 2, EXTENT_SECTORS, (int) (slot / 256), 0, 0, true, i);
        }
        long after = settledHeapBytes(memory);
        double perExtent = (after - before - orderBytes) / (double) index.extentCount();
        double fill = index.extentCount() / (index.nodeCount() * (double) ExtentIndex.LEAF_CAPACITY_DEFAULT);
        System.out.printf("%-22s extents=%d leaves=%d leaf-fill=%.1f%% heap-delta=%d B -> %.1f bytes/extent%n",
                name, index.extentCount(), index.nodeCount(), fill * 100, after - before - orderBytes, perExtent);
        if (order.length != extents) {
            throw new IllegalStateException("order array collected too early");
        }
    }

    private static long settledHeapBytes(MemoryMXBean memory) {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return memory.getHeapMemoryUsage().getUsed();
    }
}
