package io.blockcache.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.device.DeviceOp;
import io.blockcache.device.IoResult;
import io.blockcache.volume.Prefetch;
import io.blockcache.volume.Volume;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** Pinned ranges in a whole cache set in simulated time (docs/CACHING.md "Pinning"). */
class PinningTest {
    private static final int KIB = 1 << 10;
    private static final int MIB = 1 << 20;
    private static final int BLOCK = 4 * KIB;

    @Test
    void aPinnedRangeStaysCachedUnderEvictionPressureThatEvictsEverythingElse() {
        // Proves pinned data survives eviction: 1 MiB pinned, read block by block interleaved with as many unpinned
        // blocks (so every bucket is half pinned and eviction must move the pinned half out rather than keep or drop
        // the bucket), then 2 x 14 MiB of other data prefetched through an 8 MiB cache. Afterwards every pinned read
        // is a hit (no backing read), the interleaved unpinned blocks were evicted, and the data is the backing data.
        SimCacheSet sim = new SimCacheSet();
        sim.format(1);
        CacheSet set = sim.openOk();
        Volume volume = set.volume(SimCacheSet.EXPORT);
        int length = 16 * MIB;
        byte[] data = SimCacheSet.pattern(7, length);
        sim.rawWrite(sim.backing, volume.backingOffsetBytes(0), data);
        Pinning pinning = new Pinning(set);
        assertThat(pinning.pin(SimCacheSet.EXPORT, 0, MIB)).isNull();
        for (int at = 0; at < MIB; at += BLOCK) {
            sim.readOk(volume, at, BLOCK);
            sim.readOk(volume, MIB + at, BLOCK);
        }
        assertThat(volume.stats().fillSectors()).as("the pinned blocks were filled").isGreaterThanOrEqualTo(MIB / 512);
        for (int pass = 0; pass < 2; pass++) {
            Prefetch[] job = new Prefetch[1];
            IoResult result = sim.await(done -> job[0] = volume.prefetch(2L * MIB, length - 2L * MIB, 0,
                    ByteBuffer.allocateDirect(MIB), done::accept));
            assertThat(result).isEqualTo(IoResult.OK);
            assertThat(job[0].state()).as(job[0].message()).isEqualTo(Prefetch.State.DONE);
        }
        assertThat(set.garbageCollector().stats().bucketsEvicted()).as("eviction ran").isGreaterThan(100);

        long missesBefore = volume.stats().readMissSectors();
        long backingReadsBefore = sim.backing.counters().submitted(DeviceOp.READ);
        byte[] pinned = sim.readOk(volume, 0, MIB);
        assertThat(pinned).isEqualTo(Arrays.copyOfRange(data, 0, MIB));
        assertThat(volume.stats().readMissSectors() - missesBefore).as("pinned misses").isZero();
        assertThat(sim.backing.counters().submitted(DeviceOp.READ) - backingReadsBefore).as("backing reads").isZero();

        byte[] unpinned = sim.readOk(volume, MIB, MIB);
        assertThat(unpinned).isEqualTo(Arrays.copyOfRange(data, MIB, 2 * MIB));
        assertThat(volume.stats().readMissSectors() - missesBefore).as("the unpinned neighbours were evicted")
                .isEqualTo(MIB / 512);
        assertThat(set.garbageCollector().stats().pinnedRescues()).as("pinned halves moved out").isPositive();
    }

    @Test
    void aSequentialReadPastTheCutoffFillsAPinnedRangeButNotAnUnpinnedOne() {
        // Proves the sequential cutoff yields to a pin: with a 256 KiB cutoff, 2 MiB read sequentially in 64 KiB
        // requests fills only the first 256 KiB of an unpinned range, but every byte of a pinned one.
        SimCacheSet sim = new SimCacheSet();
        sim.format(3);
        CacheSet set = sim.openOk();
        Volume volume = set.volume(SimCacheSet.EXPORT);
        volume.setBypassSettings(volume.bypassSettings().withSequentialCutoffBytes(256 * KIB));
        assertThat(new Pinning(set).pin(SimCacheSet.EXPORT, 4L * MIB, 2L * MIB)).isNull();
        long filled = volume.stats().fillSectors();
        for (long at = 0; at < 2L * MIB; at += 64 * KIB) {
            sim.readOk(volume, at, 64 * KIB);
        }
        sim.loop.runFor(1_000_000_000L); // a read answers before its fill's cache write ends: let the fills finish
        long unpinnedFilled = volume.stats().fillSectors() - filled;
        assertThat(unpinnedFilled * 512).isLessThanOrEqualTo(256L * KIB);
        filled = volume.stats().fillSectors();
        for (long at = 4L * MIB; at < 6L * MIB; at += 64 * KIB) {
            sim.readOk(volume, at, 64 * KIB);
        }
        sim.loop.runFor(1_000_000_000L);
        assertThat((volume.stats().fillSectors() - filled) * 512).isEqualTo(2L * MIB);
    }

    @Test
    void aPinOverTheCapIsRefusedNamingTheNumbersAndChangesNothing() {
        // Proves the cap: half the data capacity may be pinned over all volumes; a pin past it is refused with the
        // numbers, an overlapping pin counts only its new bytes, and unpin gives the bytes back.
        SimCacheSet sim = new SimCacheSet();
        sim.format(2);
        CacheSet set = sim.openOk();
        Pinning pinning = new Pinning(set);
        long cap = pinning.capBytes();
        assertThat(cap).isBetween(3L * MIB, 4L * MIB);
        assertThat(pinning.pin(SimCacheSet.EXPORT, 0, cap - 4 * KIB)).isNull();
        assertThat(pinning.pin(SimCacheSet.EXPORT, 0, cap)).isNull(); // only 4 KiB new
        String refused = pinning.pin(SimCacheSet.EXPORT, cap, 4 * KIB);
        assertThat(refused).contains("refused", "cap of " + cap + " bytes", "50 %", cap + " bytes are pinned now");
        assertThat(pinning.pinnedBytes()).isEqualTo(cap);
        assertThat(pinning.unpin(SimCacheSet.EXPORT, 0, MIB)).isNull();
        assertThat(pinning.pinnedBytes()).isEqualTo(cap - MIB);
        assertThat(pinning.pin(SimCacheSet.EXPORT, cap, 4 * KIB)).isNull();
        assertThat(pinning.pin("nope", 0, 4 * KIB)).contains("no volume named \"nope\"");
        assertThat(pinning.pin(SimCacheSet.EXPORT, 100, 4 * KIB)).contains("sectors");
        assertThat(pinning.pin(SimCacheSet.EXPORT, 64L * MIB, 4 * KIB)).contains("ends past");
    }
}
