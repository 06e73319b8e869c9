package io.blockcache.fuzz;

import io.blockcache.cache.BucketState;
import io.blockcache.cache.BucketTable;
import io.blockcache.device.BlockDevice;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.engine.CacheSet;
import io.blockcache.format.CacheSuperblock;
import io.blockcache.loop.Prng;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Damage to durable cached data while the power is off, the kinds checksums exist for: <b>bit rot</b> (one
 * byte of a block flipped), a <b>misdirected write</b> (a block's contents landed on another block) and a
 * <b>lost write</b> (a block that reads as if never written). Each hits a 4 KiB block of a data bucket that
 * held only clean data when the cache set stopped, so the extent CRC32C must catch it and the read must be
 * served from the backing device instead: the data stays correct.
 *
 * <p>Dirty data is not damaged here: a damaged dirty extent is detected (the read fails with EIO, tested by
 * {@code DataCorruptionTest}) but is then lost, and what writeback and a drain should do with it is not yet
 * decided (docs/TESTING.md). Metadata is not damaged here either: the journal's and checkpoint's CRCs make
 * recovery refuse (tested by the corruption tests), which the fuzz would count as a failed recovery.
 * Thread rule: the scenario's thread.
 */
final class MediaFaults {
    /** Blocks damaged per clean restart at most. */
    static final int BLOCKS_MAX = 3;
    private static final int BLOCK_BYTES = 4096;

    private final List<long[]> planned = new ArrayList<>(); // {kind, offset, sourceOffset}
    private long applied;

    /** Plans damage to up to {@link #BLOCKS_MAX} blocks of clean-only data buckets of {@code set}. */
    void plan(CacheSet set, Prng fate) {
        planned.clear();
        BucketTable table = set.space().table();
        CacheSuperblock superblock = set.superblock();
        List<Integer> clean = new ArrayList<>();
        for (int b = 0; b < table.bucketCount(); b++) {
            if (table.state(b) == BucketState.SEALED && table.liveSectors(b) > 0 && table.dirtySectors(b) == 0) {
                clean.add(b);
            }
        }
        if (clean.isEmpty()) {
            return;
        }
        int blocksPerBucket = superblock.bucketSizeBytes() / BLOCK_BYTES;
        int count = 1 + fate.nextInt(BLOCKS_MAX);
        for (int i = 0; i < count; i++) {
            long offset = block(superblock, clean.get(fate.nextInt(clean.size())), fate.nextInt(blocksPerBucket));
            long source = block(superblock, clean.get(fate.nextInt(clean.size())), fate.nextInt(blocksPerBucket));
            planned.add(new long[] {fate.nextInt(3), offset, source});
        }
    }

    /** Damages the planned blocks through {@code device} (powered on, not yet opened); then {@code done}. */
    void apply(BlockDevice device, FuzzTrace trace, IoCallback done) {
        if (planned.isEmpty()) {
            done.complete(IoResult.OK);
            return;
        }
        long[] next = planned.remove(0);
        String kind = switch ((int) next[0]) {
            case 0 -> "bit rot";
            case 1 -> "misdirected write";
            default -> "lost write";
        };
        trace.add("media fault: " + kind + " at cache byte " + next[1]);
        ByteBuffer block = ByteBuffer.allocate(BLOCK_BYTES);
        long from = next[0] == 1 ? next[2] : next[1];
        device.read(from, block, read -> {
            byte[] bytes = block.array();
            if (next[0] == 0) {
                bytes[(int) (next[1] % 509)] ^= (byte) 0x5a; // a byte inside the block, not always the first
            } else if (next[0] == 2) {
                java.util.Arrays.fill(bytes, (byte) 0);
            }
            device.write(next[1], ByteBuffer.wrap(bytes), true, written -> {
                applied++;
                apply(device, trace, done);
            });
        });
    }

    /** Blocks damaged so far. */
    long applied() {
        return applied;
    }

    private static long block(CacheSuperblock superblock, int bucket, int blockInBucket) {
        return superblock.bucketOffsetBytes(bucket) + (long) blockInBucket * BLOCK_BYTES;
    }
}
