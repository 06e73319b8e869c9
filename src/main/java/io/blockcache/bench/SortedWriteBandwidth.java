package io.blockcache.bench;

import io.blockcache.device.BlockDevice;
import io.blockcache.loop.Prng;
import io.blockcache.loop.SimLoop;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.function.Function;

/**
 * The reference for a full cache's steady state: the bandwidth a backing device gives to random 4 KiB writes
 * issued in LBA order at a deep queue — what an ideal writeback of a cache full of scattered dirty blocks would
 * get. Measured in simulated time on a fresh device. Pure function of its arguments.
 */
final class SortedWriteBandwidth {
    /** Writes in flight (bcache's writeback in-flight cap is 64; the HDD's NCQ holds 32). */
    static final int DEPTH = 32;

    private SortedWriteBandwidth() {
    }

    /**
     * @param newDevice makes the device on the loop it is given
     * @param spanBlocks the 4 KiB blocks the writes are drawn from (without repetition)
     * @param writes how many writes (at most {@code spanBlocks})
     * @return MiB/s over the whole sorted batch, simulated time
     */
    static double mibPerSecond(Function<SimLoop, BlockDevice> newDevice, long spanBlocks, int writes, long seed) {
        SimLoop loop = new SimLoop();
        BlockDevice device = newDevice.apply(loop);
        Prng prng = new Prng(seed);
        long[] blocks = new long[writes];
        java.util.BitSet chosen = new java.util.BitSet();
        for (int i = 0; i < writes; i++) {
            long block;
            do {
                block = prng.nextLong(spanBlocks);
            } while (chosen.get((int) block));
            chosen.set((int) block);
            blocks[i] = block;
        }
        Arrays.sort(blocks);
        int[] next = {0};
        int[] done = {0};
        ByteBuffer data = ByteBuffer.allocate(RandomIoWorkload.BLOCK_BYTES);
        long startNs = loop.nowNs();
        Runnable[] submit = new Runnable[1];
        submit[0] = () -> {
            int i = next[0]++;
            device.write(blocks[i] * RandomIoWorkload.BLOCK_BYTES, data.duplicate(), false, result -> {
                if (!result.ok()) {
                    throw new IllegalStateException("sorted write failed: " + result);
                }
                done[0]++;
                if (next[0] < writes) {
                    submit[0].run();
                }
            });
        };
        for (int i = 0; i < Math.min(DEPTH, writes); i++) {
            submit[0].run();
        }
        loop.runUntil(() -> done[0] == writes);
        boolean[] flushed = {false};
        device.flush(result -> flushed[0] = true); // the write cache must not flatter the disk
        loop.runUntil(() -> flushed[0]);
        double seconds = (loop.nowNs() - startNs) / 1e9;
        return (double) writes * RandomIoWorkload.BLOCK_BYTES / (1 << 20) / seconds;
    }
}
