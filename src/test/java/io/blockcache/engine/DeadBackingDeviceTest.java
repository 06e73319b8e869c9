package io.blockcache.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.device.IoResult;
import io.blockcache.device.MemoryDevice;
import io.blockcache.loop.Prng;
import io.blockcache.sim.FaultPlan;
import io.blockcache.sim.FaultyDevice;
import io.blockcache.volume.CacheMode;
import io.blockcache.volume.Volume;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The failure policy: a backing device that dies (every request fails) fails FLUSH and FUA on its own
 * volume with EIO at once, keeps dirty data in the cache, ends a drain with the error and says why in the
 * volume's writeback state; the other volume of the same cache set goes on as before (nothing hangs).
 */
class DeadBackingDeviceTest {
    private final SimCacheSet sim = new SimCacheSet();
    private final MemoryDevice secondBacking = new MemoryDevice(sim.loop, 17L << 20, 512);
    private final FaultyDevice dying = new FaultyDevice(sim.backing, sim.loop, FaultPlan.none(), new Prng(1));
    private final byte[] data = SimCacheSet.pattern(9, 64 << 10);
    private CacheSet set;
    private Volume sick;
    private Volume healthy;

    @BeforeEach
    void twoVolumesOneBackingDeviceDies() {
        List<io.blockcache.engine.BackingSpec> specs = List.of(new BackingSpec("sick", dying),
                new BackingSpec("healthy", secondBacking));
        Outcome<Void> formatted = sim.await(done -> CacheSet.format(sim.loop, sim.cache, specs, SimCacheSet.OPTIONS,
                new Prng(4), fraction -> { }, done));
        assertThat(formatted.error()).isNull();
        Outcome<CacheSet> opened = sim.open(sim.cache, specs);
        assertThat(opened.error()).isNull();
        set = opened.value();
        sick = set.volume("sick");
        healthy = set.volume("healthy");
        sim.writeOk(sick, 0, data); // dirty in the cache (write-back)
        dying.setPlan(FaultPlan.none().withFailProbability(1.0));
    }

    @Test
    void cachedDataStaysDurableButWritesAroundTheCacheFailAndTheOtherVolumeGoesOn() {
        // Proves the policy: write-back writes still go to the cache and a FLUSH that needs no backing flush
        // succeeds (the data is durable in the cache through the journal); a FUA write that must go around the
        // cache fails with EIO (never a false "durable"); the healthy volume's writes, FUA and FLUSH complete.
        sim.writeOk(sick, 1 << 20, data);
        assertThat(sim.io(sick::flush)).isEqualTo(IoResult.OK);
        sick.setMode(CacheMode.WRITEAROUND);
        IoResult fua = sim.io(cb -> sick.write(3 << 20, ByteBuffer.wrap(data), true, cb));
        assertThat(fua.ok()).isFalse();
        assertThat(fua.message()).contains("backing device write failed");
        sim.writeOk(healthy, 0, data);
        assertThat(sim.io(cb -> healthy.write(1 << 20, ByteBuffer.wrap(data), true, cb))).isEqualTo(IoResult.OK);
        assertThat(sim.io(healthy::flush)).isEqualTo(IoResult.OK);
        assertThat(sim.readOk(sick, 0, data.length)).as("dirty data still readable").isEqualTo(data);
    }

    @Test
    void aDrainEndsWithTheErrorAndTheDirtyDataStays() {
        // Proves a drain of the dead volume ends with an error saying why, instead of retrying forever, and that
        // the dirty data is still in the cache; the writeback engine keeps the last error for stats.
        IoResult drained = sim.io(cb -> set.drain("sick", progress -> { }, cb));
        assertThat(drained.ok()).isFalse();
        assertThat(drained.message()).contains("drain stopped").contains("dirty data stays in the cache");
        assertThat(set.writeback("sick").dirtyBytes()).isEqualTo(data.length);
        assertThat(set.writeback("sick").lastError()).isNotNull();
        assertThat(sim.io(cb -> set.drain("healthy", progress -> { }, cb))).isEqualTo(IoResult.OK);
    }

    @Test
    void aWriteThroughWriteFailsWithEioAndLeavesNoCleanCopy() {
        // Proves write-through on the dead device fails the write, and a read afterwards does not serve the
        // refused data from the cache.
        sick.setMode(CacheMode.WRITETHROUGH);
        byte[] other = SimCacheSet.pattern(10, 64 << 10);
        IoResult written = sim.io(cb -> sick.write(2 << 20, ByteBuffer.wrap(other), false, cb));
        assertThat(written.ok()).isFalse();
        assertThat(set.volume("sick").index().extents().cachedSectors() * 512).as("only the dirty data is cached")
                .isEqualTo(data.length);
        // The volume writes through the covered-write gate (docs/FORMAT.md §7 rule 10), which sits on the sticky flush
        // device (engine.VolumeWiring).
        assertThat(sick.backingDevice()).isInstanceOf(io.blockcache.volume.CoveredWriteGate.class);
    }
}
