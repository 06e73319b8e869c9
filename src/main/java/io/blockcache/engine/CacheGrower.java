package io.blockcache.engine;

import io.blockcache.device.BlockDevice;
import io.blockcache.format.CacheSuperblock;
import io.blockcache.format.DecodeResult;
import io.blockcache.format.SuperblockPair;
import java.util.function.Consumer;

/**
 * Grows a cache set onto a larger cache device before it is opened (docs/OPERATIONS.md "Grow the cache device";
 * docs/FORMAT.md §3). The caller has made the device larger; this writes both superblock copies with the bucket count
 * the device now holds (A, flush, B, flush: the commit point, as every superblock rewrite). A crash before it leaves
 * the old geometry on a larger device, which opens as before and grows at the next try; after it, the open sizes
 * every table by the new count. The new buckets come up free with generation 0: no journal record or checkpoint can
 * name them, since none existed before, so nothing else is written.
 *
 * <p>Thread rule: before the cache set is opened, from the device's completion context.
 */
final class CacheGrower {
    private CacheGrower() {
    }

    /**
     * Rewrites the superblock pair of {@code cacheDevice} for the buckets its size now holds; {@code done} gets the
     * growth (before = after when there was nothing to grow), or why not (no valid superblock, a failed write).
     */
    static void grow(BlockDevice cacheDevice, Consumer<Outcome<CacheSet.Growth>> done) {
        DeviceBytes.read(cacheDevice, 0, 2 * CacheSuperblock.BYTES, read -> {
            if (!read.isOk()) {
                done.accept(Outcome.failed("cannot read the superblocks: " + read.error()));
                return;
            }
            DecodeResult<SuperblockPair> pair = SuperblockPair.readHead(read.value());
            if (!pair.isOk()) {
                done.accept(Outcome.failed(pair.error().message()));
                return;
            }
            CacheSuperblock now = pair.value().chosen();
            long fits = (cacheDevice.sizeBytes() - now.dataStartBytes()) / now.bucketSizeBytes();
            int after = (int) Math.min(Integer.MAX_VALUE, fits);
            if (after <= now.bucketCount()) {
                done.accept(Outcome.ok(new CacheSet.Growth(now.bucketCount(), now.bucketCount(),
                        now.bucketSizeBytes())));
                return;
            }
            byte[] encoded = now.grownTo(after).encode();
            DeviceBytes.writeAndFlush(cacheDevice, 0, encoded, first -> {
                if (!first.ok()) {
                    done.accept(Outcome.failed("writing superblock copy A failed: " + first.message()));
                    return;
                }
                DeviceBytes.writeAndFlush(cacheDevice, CacheSuperblock.BYTES, encoded, second -> done.accept(
                        second.ok() ? Outcome.ok(new CacheSet.Growth(now.bucketCount(), after, now.bucketSizeBytes()))
                                : Outcome.failed("writing superblock copy B failed: " + second.message())));
            });
        });
    }
}
