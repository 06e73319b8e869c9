package io.blockcache.bench;

import io.blockcache.loop.Prng;
import java.util.ArrayList;
import java.util.List;

/**
 * Seeded synthetic block traces for {@code bench hitratio}: the same seed gives the same trace.
 *
 * <ul>
 *   <li>{@code zipf-A}: one-block reads whose popularity follows Zipf's law with exponent A over a set of blocks
 *       scattered over the volume (rank r is read with probability proportional to 1 / r^A).</li>
 *   <li>{@code scan}: a hot set read with Zipf 0.9, then the same with a one-pass scan of many more blocks (64 KiB
 *       reads) interleaved, then the hot set alone again: what a backup or a film does to a cache.</li>
 *   <li>{@code loop}: nine tenths of the reads walk a loop of blocks in order, again and again; one tenth read a
 *       cold area eight times the loop's size at random. The loop is ~11 % of the working set: slightly larger than
 *       a cache of 10 % of it, and larger than the smaller sizes.</li>
 * </ul>
 */
final class SyntheticTraces {
    /**
     * Blocks of the Zipf traces' key space: 1 GiB of 4 KiB blocks, so that 1 % of a working set is still a cache of
     * dozens of buckets (the engine's open buckets and free reserve are fixed costs a tiny cache would mostly pay).
     */
    static final int ZIPF_BLOCKS = 262_144;
    /** Reads per synthetic trace. */
    static final int REQUESTS = 400_000;

    private SyntheticTraces() {
    }

    /** The default set: Zipf 0.8, 1.0, 1.2, a scan under a hot set, a loop. */
    static List<BlockTrace> defaults(long seed) {
        List<BlockTrace> traces = new ArrayList<>();
        for (double alpha : new double[] {0.8, 1.0, 1.2}) {
            traces.add(zipf(alpha, ZIPF_BLOCKS, REQUESTS, seed));
        }
        traces.add(scan(16_384, 131_072, seed));
        traces.add(loop(16_384, REQUESTS, seed));
        return traces;
    }

    static BlockTrace zipf(double alpha, int blocks, int requests, long seed) {
        Prng prng = new Prng(seed);
        ZipfSampler sampler = new ZipfSampler(blocks, alpha);
        long[] placement = scatter(blocks, prng);
        BlockTrace.Builder builder = new BlockTrace.Builder(String.format("zipf-%.1f", alpha));
        for (int i = 0; i < requests; i++) {
            builder.addBlocks(placement[sampler.sample(prng)], 1, false);
        }
        return builder.build();
    }

    static BlockTrace scan(int hotBlocks, int scanBlocks, long seed) {
        Prng prng = new Prng(seed);
        ZipfSampler sampler = new ZipfSampler(hotBlocks, 0.9);
        long[] hot = scatter(hotBlocks, prng);
        long scanStart = 1L << 24; // 64 GiB in: away from the hot blocks
        int scanRequest = 16; // 64 KiB reads
        BlockTrace.Builder builder = new BlockTrace.Builder("scan");
        int phase = hotBlocks * 10;
        for (int i = 0; i < phase; i++) {
            builder.addBlocks(hot[sampler.sample(prng)], 1, false);
        }
        for (long s = 0; s < scanBlocks; s += scanRequest) {
            builder.addBlocks(scanStart + s, scanRequest, false);
            for (int k = 0; k < 4; k++) {
                builder.addBlocks(hot[sampler.sample(prng)], 1, false);
            }
        }
        for (int i = 0; i < phase; i++) {
            builder.addBlocks(hot[sampler.sample(prng)], 1, false);
        }
        return builder.build();
    }

    static BlockTrace loop(int loopBlocks, int requests, long seed) {
        Prng prng = new Prng(seed);
        long coldStart = 1L << 24;
        int coldBlocks = loopBlocks * 8;
        BlockTrace.Builder builder = new BlockTrace.Builder("loop");
        int position = 0;
        for (int i = 0; i < requests; i++) {
            if (prng.nextInt(10) == 0) {
                builder.addBlocks(coldStart + prng.nextInt(coldBlocks) * 7L, 1, false);
            } else {
                builder.addBlocks(position * 3L, 1, false); // every third block: not one sequential stream
                position = (position + 1) % loopBlocks;
            }
        }
        return builder.build();
    }

    /** Distinct block numbers for ranks 0..n-1, spread over 16 Mi blocks (64 GiB) at random. */
    private static long[] scatter(int n, Prng prng) {
        java.util.HashSet<Long> used = new java.util.HashSet<>();
        long[] placement = new long[n];
        for (int i = 0; i < n; i++) {
            long block;
            do {
                block = prng.nextLong(1L << 24);
            } while (!used.add(block));
            placement[i] = block;
        }
        return placement;
    }

    /** Samples ranks 0..n-1 with probability proportional to 1 / (rank + 1)^alpha, by its cumulative table. */
    static final class ZipfSampler {
        private final double[] cumulative;

        ZipfSampler(int n, double alpha) {
            cumulative = new double[n];
            double sum = 0;
            for (int i = 0; i < n; i++) {
                sum += 1.0 / Math.pow(i + 1, alpha);
                cumulative[i] = sum;
            }
            for (int i = 0; i < n; i++) {
                cumulative[i] /= sum;
            }
        }

        int sample(Prng prng) {
            double u = prng.nextDouble();
            int index = java.util.Arrays.binarySearch(cumulative, u);
            int rank = index >= 0 ? index : -index - 1;
            return Math.min(rank, cumulative.length - 1);
        }
    }
}
