package io.blockcache.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blockcache.device.BlockDevice;
import io.blockcache.loop.Prng;
import io.blockcache.loop.SimLoop;
import java.nio.ByteBuffer;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;

/** The harness itself: patterns decode exactly, planted bugs are caught with a replayable message, runs repeat. */
class HarnessTest {
    private static final long DEVICE_BYTES = 64L << 20;

    @Test
    void patternsDecodeToTheirWriteAndAnyMixIsTorn() {
        // Proves a sector names its write, zero is zero, and a sector mixing two writes or misplaced is torn.
        ByteBuffer a = ByteBuffer.allocate(BlockDevice.SECTOR_BYTES);
        ByteBuffer b = ByteBuffer.allocate(BlockDevice.SECTOR_BYTES);
        SectorPattern.fill(7, 100, a);
        SectorPattern.fill(8, 100, b);
        assertThat(SectorPattern.decode(a.flip().duplicate(), 100)).isEqualTo(7);
        assertThat(SectorPattern.decode(a.duplicate(), 101)).isEqualTo(SectorPattern.TORN);
        assertThat(SectorPattern.decode(ByteBuffer.allocate(512), 5)).isEqualTo(SectorPattern.ZERO);
        ByteBuffer mixed = ByteBuffer.allocate(BlockDevice.SECTOR_BYTES);
        mixed.put(a.array(), 0, 256).put(b.array(), 256, 256).flip();
        assertThat(SectorPattern.decode(mixed, 100)).isEqualTo(SectorPattern.TORN);
        ByteBuffer oneByte = ByteBuffer.allocate(BlockDevice.SECTOR_BYTES);
        oneByte.put(511, (byte) 1);
        assertThat(SectorPattern.decode(oneByte, 0)).isEqualTo(SectorPattern.TORN);
    }

    @Test
    void aDeviceWhoseFlushLiesIsCaughtAfterACrash() {
        // Proves the crash check fails when acknowledged-flushed data can vanish, naming seed and sector.
        assertThatThrownBy(() -> runSeeds(broken(BrokenDevice.Bug.FLUSH_LIES), ScenarioConfig.crashTest(100, 3, 3)))
                .isInstanceOf(ContractViolation.class)
                .hasMessageContaining("seed ")
                .hasMessageContaining("after recovery, sector ");
    }

    @Test
    void aDeviceThatDropsWritesIsCaughtByReads() {
        // Proves the read check fails when an acknowledged write is not visible to later reads.
        assertThatThrownBy(() -> runSeeds(broken(BrokenDevice.Bug.DROPS_WRITES), ScenarioConfig.modelTest(300)))
                .isInstanceOf(ContractViolation.class)
                .hasMessageContaining("step ")
                .hasMessageContaining("expected one of");
    }

    @Test
    void oneSeedRunTwiceGivesTheSameTrace() {
        // Proves a crash run is a pure function of its seed (and that the trace does depend on the seed).
        BiFunction<SimLoop, Prng, CrashTarget> hdd =
                (loop, ids) -> new RawDeviceTarget(loop, SmallDevices.hdd(loop, DEVICE_BYTES));
        ScenarioConfig config = ScenarioConfig.crashTest(150, 3, 3);
        CrashScenario.Result first = CrashScenario.run(42, config, hdd);
        CrashScenario.Result second = CrashScenario.run(42, config, hdd);
        CrashScenario.Result other = CrashScenario.run(43, config, hdd);
        assertThat(second).isEqualTo(first);
        assertThat(other.traceHash()).isNotEqualTo(first.traceHash());
    }

    private static BiFunction<SimLoop, Prng, CrashTarget> broken(BrokenDevice.Bug bug) {
        return (loop, ids) -> new RawDeviceTarget(loop, new BrokenDevice(SmallDevices.ssd(loop, DEVICE_BYTES), loop,
                bug));
    }

    private static void runSeeds(BiFunction<SimLoop, Prng, CrashTarget> target, ScenarioConfig config) {
        for (long seed = 1; seed <= 50; seed++) {
            CrashScenario.run(seed, config, target);
        }
    }
}
