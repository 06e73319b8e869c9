package io.blockcache.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.device.IoResult;
import io.blockcache.loop.Prng;
import io.blockcache.loop.SimLoop;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class CrashImageTest {
    private static final int WRITE_BYTES = 4096;
    private static final long FLUSHED_OFFSET = 1L << 20;
    private static final long FUA_OFFSET = 2L << 20;
    private static final long UNFLUSHED_OFFSET = 3L << 20;

    enum Fate { PRESENT, ABSENT, TORN }

    private static final Function<SimLoop, SimDevice> HDD = loop -> new HddModel(loop, HddConfig.defaults());
    private static final Function<SimLoop, SimDevice> SSD = loop -> new SsdModel(loop, SsdConfig.defaults());

    @Test
    void hddWithWriteCacheKeepsFlushedAndFuaWritesAndExposesUnflushedOnesToAllFates() {
        // Proves on the HDD (cache on) durable writes always survive and an unflushed one can survive, vanish or tear.
        checkCrashImages(HDD);
    }

    @Test
    void ssdKeepsFlushedAndFuaWritesAndExposesUnflushedOnesToAllFates() {
        // Proves the same crash-image contract on the SSD.
        checkCrashImages(SSD);
    }

    private static void checkCrashImages(Function<SimLoop, SimDevice> factory) {
        Set<Fate> seen = EnumSet.noneOf(Fate.class);
        for (long seed = 0; seed < 200; seed++) {
            SimLoop loop = new SimLoop();
            SimDevice device = factory.apply(loop);
            byte[] flushed = data(seed, 1);
            byte[] fua = data(seed, 2);
            byte[] unflushed = data(seed, 3);
            List<IoResult> results = new ArrayList<>();
            device.write(FLUSHED_OFFSET, ByteBuffer.wrap(flushed), false, results::add);
            loop.runUntil(() -> results.size() == 1);
            device.flush(results::add);
            loop.runUntil(() -> results.size() == 2);
            device.write(FUA_OFFSET, ByteBuffer.wrap(fua), true, results::add);
            loop.runUntil(() -> results.size() == 3);
            device.write(UNFLUSHED_OFFSET, ByteBuffer.wrap(unflushed), false, results::add);
            loop.runUntil(() -> results.size() == 4);
            assertThat(results).as("seed %d", seed).containsOnly(IoResult.OK);

            CrashOutcome outcome = device.crash(new Prng(seed));
            assertThat(outcome.exposed()).as("seed %d: only the unflushed write is exposed", seed).isEqualTo(1);
            SimLoop after = new SimLoop();
            device.powerOn(after);
            assertThat(readBack(device, after, FLUSHED_OFFSET)).as("seed %d flushed", seed).isEqualTo(flushed);
            assertThat(readBack(device, after, FUA_OFFSET)).as("seed %d fua", seed).isEqualTo(fua);
            seen.add(classify(readBack(device, after, UNFLUSHED_OFFSET), unflushed, seed));
        }
        assertThat(seen).containsExactlyInAnyOrder(Fate.values());
    }

    @Test
    void inFlightRequestsAreDroppedWithoutCallbacksAndTheDeviceWorksAfterPowerOn() {
        // Proves a crash drops in-flight callbacks (even if the old loop keeps running) and the device restarts usable.
        SimLoop loop = new SimLoop();
        SimDevice hdd = HDD.apply(loop);
        List<IoResult> results = new ArrayList<>();
        hdd.read(1L << 40, ByteBuffer.allocate(4096), results::add);
        hdd.write(0, ByteBuffer.wrap(data(9, 9)), true, results::add);
        CrashOutcome outcome = hdd.crash(new Prng(1));
        loop.runUntilIdle();
        assertThat(results).isEmpty();
        assertThat(outcome.exposed()).isEqualTo(1); // the in-flight FUA write was not yet durable
        SimLoop after = new SimLoop();
        hdd.powerOn(after);
        byte[] fresh = data(10, 10);
        hdd.write(8192, ByteBuffer.wrap(fresh), false, results::add);
        after.runUntilIdle();
        assertThat(results).containsExactly(IoResult.OK);
        assertThat(readBack(hdd, after, 8192)).isEqualTo(fresh);
        assertThat(hdd.counters().inFlight()).isZero();
    }

    @Test
    void aChosenCrashKeepsExactlyTheChosenWritesWholeAndNeverBehindNewerDurableData() {
        // Proves crash(BitSet) keeps exactly the chosen pending writes (issue order) and obeys the landing rule.
        for (int mask = 0; mask < 4; mask++) {
            SimLoop loop = new SimLoop();
            SimDevice ssd = SSD.apply(loop);
            byte[] overwritten = data(mask, 1);
            byte[] unflushed = data(mask, 2);
            byte[] fua = data(mask, 3);
            List<IoResult> results = new ArrayList<>();
            ssd.write(0, ByteBuffer.wrap(overwritten), false, results::add);
            ssd.write(UNFLUSHED_OFFSET, ByteBuffer.wrap(unflushed), false, results::add);
            loop.runUntil(() -> results.size() == 2);
            // Submitted after the first write was acknowledged: that write may never land on top of this one.
            ssd.write(0, ByteBuffer.wrap(fua), true, results::add);
            loop.runUntil(() -> results.size() == 3);
            assertThat(results).containsOnly(IoResult.OK);
            assertThat(ssd.pendingWriteCount()).isEqualTo(2);

            java.util.BitSet survivors = java.util.BitSet.valueOf(new long[] {mask});
            CrashOutcome outcome = ssd.crash(survivors);
            assertThat(outcome).isEqualTo(new CrashOutcome(Integer.bitCount(mask), 2 - Integer.bitCount(mask), 0));
            SimLoop after = new SimLoop();
            ssd.powerOn(after);
            assertThat(readBack(ssd, after, 0)).as("mask %d", mask).isEqualTo(fua);
            assertThat(readBack(ssd, after, UNFLUSHED_OFFSET)).as("mask %d", mask)
                    .isEqualTo((mask & 2) != 0 ? unflushed : new byte[WRITE_BYTES]);
            assertThat(ssd.pendingWriteCount()).isZero();
        }
    }

    private static Fate classify(byte[] actual, byte[] written, long seed) {
        int matching = 0;
        int zero = 0;
        for (int s = 0; s < WRITE_BYTES / 512; s++) {
            boolean isNew = java.util.Arrays.equals(actual, s * 512, s * 512 + 512, written, s * 512, s * 512 + 512);
            boolean isZero = java.util.Arrays.equals(actual, s * 512, s * 512 + 512, new byte[512], 0, 512);
            matching += isNew ? 1 : 0;
            zero += isZero ? 1 : 0;
            assertThat(isNew || isZero).as("seed %d sector %d is neither old nor new (not sector-atomic)", seed, s)
                    .isTrue();
        }
        return matching == WRITE_BYTES / 512 ? Fate.PRESENT : zero == WRITE_BYTES / 512 ? Fate.ABSENT : Fate.TORN;
    }

    private static byte[] readBack(SimDevice device, SimLoop loop, long offsetBytes) {
        ByteBuffer dst = ByteBuffer.allocate(WRITE_BYTES);
        List<IoResult> results = new ArrayList<>();
        device.read(offsetBytes, dst, results::add);
        loop.runUntil(() -> !results.isEmpty());
        assertThat(results).containsExactly(IoResult.OK);
        return dst.array();
    }

    private static byte[] data(long seed, int salt) {
        byte[] bytes = new byte[WRITE_BYTES];
        new Prng(seed * 31 + salt).nextBytes(bytes);
        return bytes;
    }
}
