package io.blockcache.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.device.IoResult;
import io.blockcache.volume.Prefetch;
import io.blockcache.volume.Volume;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** {@link Volume#prefetch} in a whole cache set: room for its fills comes from evicting clean data. */
class PrefetchEvictionTest {
    private static final int MIB = 1 << 20;

    @Test
    void aPrefetchLargerThanTheCacheKeepsFillingByEvictingCleanData() {
        // Proves a prefetch waits for GC's eviction instead of dropping fills: 16 MiB through a cache of 8 MiB (less
        // its metadata) runs to the end, fills every byte (the early ones are evicted again to make room), and the
        // last 2 MiB read back as hits with the backing data.
        SimCacheSet sim = new SimCacheSet();
        sim.format(1);
        CacheSet set = sim.openOk();
        Volume volume = set.volume(SimCacheSet.EXPORT);
        int length = 16 * MIB;
        byte[] data = SimCacheSet.pattern(5, length);
        sim.rawWrite(sim.backing, volume.backingOffsetBytes(0), data);
        Prefetch[] job = new Prefetch[1];
        IoResult result = sim.await(done -> job[0] = volume.prefetch(0, length, 0, ByteBuffer.allocateDirect(MIB),
                done::accept));
        assertThat(result).isEqualTo(IoResult.OK);
        assertThat(job[0].state()).as(job[0].message()).isEqualTo(Prefetch.State.DONE);
        assertThat(job[0].filledBytes()).isEqualTo(length);
        assertThat(set.garbageCollector().stats().bucketsEvicted()).as("room came from eviction").isPositive();
        long hits = volume.stats().readHitSectors();
        byte[] tail = sim.readOk(volume, length - 2L * MIB, 2 * MIB);
        assertThat(tail).isEqualTo(java.util.Arrays.copyOfRange(data, length - 2 * MIB, length));
        assertThat(volume.stats().readHitSectors() - hits).isEqualTo(2L * MIB / 512);
    }
}
