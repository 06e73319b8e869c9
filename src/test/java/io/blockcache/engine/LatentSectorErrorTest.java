package io.blockcache.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.cache.BucketState;
import io.blockcache.device.DeviceOp;
import io.blockcache.device.IoResult;
import io.blockcache.format.CacheSuperblock;
import io.blockcache.loop.Prng;
import io.blockcache.sim.FaultPlan;
import io.blockcache.sim.FaultyDevice;
import io.blockcache.volume.Volume;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Recovery survives a latent sector error (a block whose reads fail) where the block is not needed — a
 * superblock copy, a journal block outside the replay range, a superseded checkpoint's chunk — and refuses,
 * saying where, when the unreadable block may hold durable journal entries.
 */
class LatentSectorErrorTest {
    private final SimCacheSet sim = new SimCacheSet();
    private final byte[] data = SimCacheSet.pattern(5, 64 << 10);
    private CacheSuperblock superblock;

    @BeforeEach
    void formatWriteFlushAndCrash() {
        sim.format(2);
        CacheSet set = sim.openOk();
        superblock = set.superblock();
        Volume volume = set.volume(SimCacheSet.EXPORT);
        sim.writeOk(volume, 256 << 10, data);
        sim.flushOk(volume);
        sim.crash();
    }

    @Test
    void anUnreadableSuperblockCopyIsTakenFromTheOtherCopy() {
        // Proves open survives copy A failing every read: it uses copy B and the flushed data is intact.
        FaultyDevice cache = latent(0, CacheSuperblock.BYTES);
        Outcome<CacheSet> opened = sim.open(cache, sim.backings());
        assertThat(opened.error()).isNull();
        assertThat(sim.readOk(opened.value().volume(SimCacheSet.EXPORT), 256 << 10, data.length)).isEqualTo(data);
    }

    @Test
    void anUnreadableJournalBlockOutsideTheReplayRangeIsHarmless() {
        // Proves a latent error in the last block of the ring (never written, far from where the journal goes on)
        // does not stop recovery, and the flushed data is intact.
        long ringEnd = superblock.bucketOffsetBytes(superblock.journalFirstBucket() + superblock.journalBuckets());
        Outcome<CacheSet> opened = sim.open(latent(ringEnd - 4096, 4096), sim.backings());
        assertThat(opened.error()).isNull();
        assertThat(sim.readOk(opened.value().volume(SimCacheSet.EXPORT), 256 << 10, data.length)).isEqualTo(data);
    }

    @Test
    void anUnreadableJournalBlockWhereTheJournalGoesOnIsRefusedWithItsPlace() {
        // Proves recovery refuses (rather than silently losing entries) when the block right after the last
        // valid entry cannot be read: a durable entry may be there. The error names the ring byte.
        long ringStart = superblock.bucketOffsetBytes(superblock.journalFirstBucket());
        long stop = sim.openOk().journal().position().ringOffsetBytes(); // where the journal continues
        sim.crash();
        Outcome<CacheSet> opened = sim.open(latent(ringStart + stop, 4096), sim.backings());
        assertThat(opened.isOk()).isFalse();
        assertThat(opened.error()).contains("cannot be read (latent sector error)").contains("ring byte " + stop);
    }

    @Test
    void checkReportsWhatOpenDoes() {
        // Proves check and open share one metadata walk: on the same unreadable journal block check reports
        // the refusal open gives, and on a healthy crashed cache it notes that open drops the clean extents no flush
        // covered.
        long ringStart = superblock.bucketOffsetBytes(superblock.journalFirstBucket());
        long stop = sim.openOk().journal().position().ringOffsetBytes();
        sim.crash();
        CacheReport healthy = sim.await(done -> CacheInspector.inspect(sim.cache, false, done));
        assertThat(healthy.problems()).isEmpty();
        assertThat(healthy.notes()).anyMatch(note -> note.contains("drops the other clean ones"));
        FaultyDevice damaged = latent(ringStart + stop, 4096);
        CacheReport report = sim.await(done -> CacheInspector.inspect(damaged, false, done));
        Outcome<CacheSet> opened = sim.open(damaged, sim.backings());
        assertThat(opened.isOk()).isFalse();
        assertThat(report.problems()).singleElement().asString().startsWith(opened.error());
    }

    @Test
    void anUnreadableChunkOfASupersededCheckpointIsHarmless() {
        // Proves the buckets of a checkpoint replaced by a newer one are never needed again: failing every read
        // of them does not stop recovery.
        CacheSet set = sim.openOk();
        assertThat(sim.io(set::checkpoint)).isEqualTo(IoResult.OK);
        List<Integer> first = metadataBuckets(set);
        assertThat(first).isNotEmpty();
        sim.writeOk(set.volume(SimCacheSet.EXPORT), 512 << 10, data);
        assertThat(sim.io(set::checkpoint)).isEqualTo(IoResult.OK);
        assertThat(metadataBuckets(set)).doesNotContainAnyElementsOf(first);
        sim.flushOk(set.volume(SimCacheSet.EXPORT));
        sim.crash();
        FaultPlan plan = FaultPlan.none();
        for (int bucket : first) {
            plan = plan.withRegion(DeviceOp.READ, superblock.bucketOffsetBytes(bucket), superblock.bucketSizeBytes());
        }
        Outcome<CacheSet> opened = sim.open(new FaultyDevice(sim.cache, sim.loop, plan, new Prng(1)), sim.backings());
        assertThat(opened.error()).isNull();
        assertThat(sim.readOk(opened.value().volume(SimCacheSet.EXPORT), 512 << 10, data.length)).isEqualTo(data);
    }

    private static List<Integer> metadataBuckets(CacheSet set) {
        List<Integer> buckets = new ArrayList<>();
        for (int b = 0; b < set.space().table().bucketCount(); b++) {
            if (set.space().table().state(b) == BucketState.METADATA) {
                buckets.add(b);
            }
        }
        return buckets;
    }

    /** The cache device with reads of {@code [offsetBytes, + lengthBytes)} failing, as a latent sector error. */
    private FaultyDevice latent(long offsetBytes, long lengthBytes) {
        return new FaultyDevice(sim.cache, sim.loop, FaultPlan.none().withRegion(DeviceOp.READ, offsetBytes,
                lengthBytes), new Prng(1));
    }
}
