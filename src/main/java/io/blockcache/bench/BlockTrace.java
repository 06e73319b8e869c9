package io.blockcache.bench;

import java.util.Arrays;
import java.util.HashSet;

/**
 * A block trace as {@code bench hitratio} replays it: requests in order, each a read or a write of whole 4 KiB
 * blocks (a trace's byte range widened to the blocks it touches, so the engine and the classic policies see the
 * same blocks). Built once by a reader ({@link TraceReaders}) or a generator ({@link SyntheticTraces}); then
 * read-only.
 *
 * <p>Thread rule: immutable after {@link Builder#build}; any thread.
 */
final class BlockTrace {
    static final int BLOCK_BYTES = 4096;

    private final String name;
    private final long[] startBlocks;
    private final int[] blockCounts;
    private final boolean[] writes;

    private BlockTrace(String name, long[] startBlocks, int[] blockCounts, boolean[] writes) {
        this.name = name;
        this.startBlocks = startBlocks;
        this.blockCounts = blockCounts;
        this.writes = writes;
    }

    String name() {
        return name;
    }

    int requests() {
        return startBlocks.length;
    }

    long startBlock(int request) {
        return startBlocks[request];
    }

    int blockCount(int request) {
        return blockCounts[request];
    }

    boolean isWrite(int request) {
        return writes[request];
    }

    /** The first {@code max} requests (all of them if there are fewer). */
    BlockTrace head(int max) {
        int n = Math.min(max, requests());
        return new BlockTrace(name, Arrays.copyOf(startBlocks, n), Arrays.copyOf(blockCounts, n),
                Arrays.copyOf(writes, n));
    }

    /** Distinct blocks touched (the working set), reads and writes. */
    long workingSetBlocks() {
        HashSet<Long> seen = new HashSet<>();
        for (int r = 0; r < requests(); r++) {
            for (int b = 0; b < blockCounts[r]; b++) {
                seen.add(startBlocks[r] + b);
            }
        }
        return seen.size();
    }

    /** One past the highest block touched. */
    long endBlock() {
        long end = 0;
        for (int r = 0; r < requests(); r++) {
            end = Math.max(end, startBlocks[r] + blockCounts[r]);
        }
        return end;
    }

    /** Every block reference in order (each request expanded to its blocks), for the classic policies. */
    long[] blockStream() {
        long total = 0;
        for (int count : blockCounts) {
            total += count;
        }
        if (total > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("trace too long: " + total + " block references");
        }
        long[] stream = new long[(int) total];
        int i = 0;
        for (int r = 0; r < requests(); r++) {
            for (int b = 0; b < blockCounts[r]; b++) {
                stream[i++] = startBlocks[r] + b;
            }
        }
        return stream;
    }

    /** Collects requests; widens byte ranges to whole blocks. Thread rule: one thread. */
    static final class Builder {
        /** Largest request kept whole: longer ones are cut to this (a trace record is at most a few MiB). */
        static final int BLOCKS_PER_REQUEST_MAX = 1024;

        private final String name;
        private long[] starts = new long[1024];
        private int[] counts = new int[1024];
        private boolean[] kinds = new boolean[1024];
        private int size;

        Builder(String name) {
            this.name = name;
        }

        /** Adds a request of {@code lengthBytes} (≥ 1) at {@code offsetBytes} (≥ 0). */
        Builder addBytes(long offsetBytes, long lengthBytes, boolean write) {
            if (offsetBytes < 0 || lengthBytes < 1) {
                throw new IllegalArgumentException("bad request: offset " + offsetBytes + ", length " + lengthBytes);
            }
            long first = offsetBytes / BLOCK_BYTES;
            long end = (offsetBytes + lengthBytes + BLOCK_BYTES - 1) / BLOCK_BYTES;
            return addBlocks(first, (int) Math.min(BLOCKS_PER_REQUEST_MAX, end - first), write);
        }

        /** Adds a request of {@code blockCount} blocks from {@code startBlock}. */
        Builder addBlocks(long startBlock, int blockCount, boolean write) {
            if (size == starts.length) {
                starts = Arrays.copyOf(starts, size * 2);
                counts = Arrays.copyOf(counts, size * 2);
                kinds = Arrays.copyOf(kinds, size * 2);
            }
            starts[size] = startBlock;
            counts[size] = blockCount;
            kinds[size] = write;
            size++;
            return this;
        }

        BlockTrace build() {
            return new BlockTrace(name, Arrays.copyOf(starts, size), Arrays.copyOf(counts, size),
                    Arrays.copyOf(kinds, size));
        }
    }
}
