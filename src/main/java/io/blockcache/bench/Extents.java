package io.blockcache.bench;

import io.blockcache.loop.Checks;
import io.blockcache.loop.Prng;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A seeded set of non-overlapping extents spread over a volume, and the order a front end writes them in. Every
 * experiment that compares policies builds one set from its seed and gives each policy the very same set.
 *
 * @param startBytes the extents' offsets, ascending (volume bytes, 4 KiB aligned)
 * @param lengthBytes the extents' lengths, in the same order (multiples of 4 KiB)
 * @param writeOrder a permutation of indexes into the arrays above: the order the front end writes them
 */
record Extents(long[] startBytes, int[] lengthBytes, int[] writeOrder) {
    private static final int ALIGN_BYTES = 4096;

    /**
     * Draws extents of random lengths in [{@code minBytes}, {@code maxBytes}] (4 KiB steps) at random aligned
     * offsets in [0, {@code spanBytes}) until they add up to at least {@code totalBytes}; a draw overlapping an
     * earlier extent is redrawn. Written in random order.
     */
    static Extents random(Prng prng, long spanBytes, long totalBytes, int minBytes, int maxBytes) {
        Checks.check(minBytes % ALIGN_BYTES == 0 && maxBytes % ALIGN_BYTES == 0 && minBytes <= maxBytes
                && minBytes > 0, "bad extent sizes %s..%s", minBytes, maxBytes);
        Checks.check(totalBytes * 4 <= spanBytes, "the set must stay sparse: %s bytes in %s", totalBytes, spanBytes);
        java.util.TreeMap<Long, Integer> chosen = new java.util.TreeMap<>();
        long sum = 0;
        long slots = (spanBytes - maxBytes) / ALIGN_BYTES;
        int steps = (maxBytes - minBytes) / ALIGN_BYTES + 1;
        while (sum < totalBytes) {
            long start = prng.nextLong(slots) * ALIGN_BYTES;
            int length = minBytes + prng.nextInt(steps) * ALIGN_BYTES;
            var before = chosen.floorEntry(start);
            var after = chosen.ceilingEntry(start);
            if ((before != null && before.getKey() + before.getValue() > start)
                    || (after != null && after.getKey() < start + length)) {
                continue; // overlaps: draw again (rare, the set is sparse)
            }
            chosen.put(start, length);
            sum += length;
        }
        long[] starts = new long[chosen.size()];
        int[] lengths = new int[chosen.size()];
        int i = 0;
        for (var e : chosen.entrySet()) {
            starts[i] = e.getKey();
            lengths[i++] = e.getValue();
        }
        return new Extents(starts, lengths, shuffled(prng, starts.length));
    }

    /**
     * Extents of random lengths in [{@code minBytes}, {@code maxBytes}] (4 KiB steps) that tile [0,
     * {@code regionBytes}) exactly, written in random order: a region rewritten whole, in pieces (the last extent
     * is cut to end at the region's end).
     */
    static Extents tiling(Prng prng, long regionBytes, int minBytes, int maxBytes) {
        Checks.check(regionBytes % ALIGN_BYTES == 0 && minBytes % ALIGN_BYTES == 0 && maxBytes % ALIGN_BYTES == 0
                && minBytes > 0 && minBytes <= maxBytes, "bad tiling %s in %s..%s", regionBytes, minBytes, maxBytes);
        List<long[]> pieces = new ArrayList<>();
        int steps = (maxBytes - minBytes) / ALIGN_BYTES + 1;
        for (long start = 0; start < regionBytes; ) {
            long length = Math.min(regionBytes - start, minBytes + (long) prng.nextInt(steps) * ALIGN_BYTES);
            pieces.add(new long[] {start, length});
            start += length;
        }
        Extents sorted = sorted(pieces);
        return new Extents(sorted.startBytes(), sorted.lengthBytes(), shuffled(prng, pieces.size()));
    }

    /** Every other extent of this set in ascending order (the even-numbered ones, or the odd), in random order. */
    Extents alternate(boolean odd, Prng prng) {
        List<long[]> pieces = new ArrayList<>();
        for (int i = odd ? 1 : 0; i < count(); i += 2) {
            pieces.add(new long[] {startBytes[i], lengthBytes[i]});
        }
        Extents sorted = sorted(pieces);
        return new Extents(sorted.startBytes(), sorted.lengthBytes(), shuffled(prng, pieces.size()));
    }

    /** Extents given in ascending order, written in that order. */
    static Extents sorted(List<long[]> startAndLength) {
        long[] starts = new long[startAndLength.size()];
        int[] lengths = new int[startAndLength.size()];
        for (int i = 0; i < starts.length; i++) {
            starts[i] = startAndLength.get(i)[0];
            lengths[i] = (int) startAndLength.get(i)[1];
        }
        int[] order = new int[starts.length];
        Arrays.setAll(order, k -> k);
        return new Extents(starts, lengths, order);
    }

    private static int[] shuffled(Prng prng, int count) {
        int[] order = new int[count];
        Arrays.setAll(order, k -> k);
        for (int k = count - 1; k > 0; k--) {
            int j = prng.nextInt(k + 1);
            int t = order[k];
            order[k] = order[j];
            order[j] = t;
        }
        return order;
    }

    int count() {
        return startBytes.length;
    }

    long totalBytes() {
        long sum = 0;
        for (int length : lengthBytes) {
            sum += length;
        }
        return sum;
    }

    /** The extents as (start, length) pairs in ascending order. */
    List<long[]> ascending() {
        List<long[]> out = new ArrayList<>(count());
        for (int i = 0; i < count(); i++) {
            out.add(new long[] {startBytes[i], lengthBytes[i]});
        }
        return out;
    }
}
