package io.blockcache.writeback;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.device.IoResult;
import io.blockcache.volume.CacheMode;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class WritebackRaceTest {
    private static final long MS = 1_000_000L;
    private static final long X = 64 * 4096;

    /** A rig with one dirty 16 KiB block at X whose writeback has just started (cache read in flight). */
    private static WritebackRig inFlightAtX(byte[] old) {
        WritebackRig rig = new WritebackRig(64L << 20, 1L << 30);
        rig.tune(b -> b.running(false));
        rig.write(X, old);
        rig.loop.runFor(300 * MS);
        rig.tune(b -> b.running(true));
        assertThat(rig.loop.runUntil(() -> rig.writeback().keysInFlight() > 0)).isTrue();
        return rig;
    }

    private static IoResult[] submitWrite(WritebackRig rig, long offset, byte[] data) {
        IoResult[] out = new IoResult[1];
        rig.volume().write(offset, ByteBuffer.wrap(data), false, r -> out[0] = r);
        return out;
    }

    private static void settle(WritebackRig rig) {
        IoResult drained = rig.await(cb -> rig.set.drain(WritebackRig.NAME, p -> { }, cb));
        assertThat(drained).isEqualTo(IoResult.OK);
    }

    @Test
    void anOverwriteDuringWritebackStaysDirtyAndTheNewDataWins() {
        // Proves conditional clean marking: the old key's clean does not clean the newer extent.
        byte[] old = WritebackRig.pattern(1, 16384);
        byte[] fresh = WritebackRig.pattern(2, 16384);
        WritebackRig rig = inFlightAtX(old);
        IoResult[] w = submitWrite(rig, X, fresh);
        rig.loop.runUntil(() -> w[0] != null && rig.writeback().keysInFlight() == 0);
        assertThat(w[0]).isEqualTo(IoResult.OK);
        assertThat(rig.writeback().counters().sectorsOverwrittenMeanwhile()).isEqualTo(32);
        assertThat(rig.dirtySectors()).isEqualTo(32); // the newer extent is still dirty
        assertThat(rig.read(X, 16384)).isEqualTo(fresh);
        settle(rig);
        assertThat(rig.backing(X, 16384)).isEqualTo(fresh);
    }

    @Test
    void aBypassWriteOverAnInFlightKeyIsForcedIntoTheCache() {
        // Proves the bcache race fix: in writearound mode a write over an in-flight key is cached as newer dirty
        // data, so the writeback's old data cannot land after it on the backing device.
        byte[] old = WritebackRig.pattern(3, 16384);
        byte[] fresh = WritebackRig.pattern(4, 16384);
        WritebackRig rig = inFlightAtX(old);
        rig.volume().setMode(CacheMode.WRITEAROUND);
        IoResult[] w = submitWrite(rig, X, fresh);
        rig.loop.runUntil(() -> w[0] != null);
        assertThat(w[0]).isEqualTo(IoResult.OK);
        assertThat(rig.volume().stats().writesForcedIntoCache()).isEqualTo(1);
        assertThat(rig.volume().stats().writeBypassedSectors()).isZero();
        settle(rig);
        assertThat(rig.read(X, 16384)).isEqualTo(fresh);
        assertThat(rig.backing(X, 16384)).isEqualTo(fresh);
        byte[] later = WritebackRig.pattern(5, 16384); // nothing in flight now: writearound goes around again
        rig.write(X, later);
        assertThat(rig.volume().stats().writeBypassedSectors()).isEqualTo(32);
    }

    @Test
    void writeZeroesDuringWritebackWaitsAndTheZeroesWin() {
        // Proves write-zeroes over an in-flight key is held until the writeback settled, then zeroes the disk.
        WritebackRig rig = inFlightAtX(WritebackRig.pattern(6, 16384));
        IoResult[] z = new IoResult[1];
        rig.volume().writeZeroes(X, 16384, false, r -> z[0] = r);
        rig.loop.runUntil(() -> rig.writeback().keysInFlight() == 0);
        rig.loop.runUntil(() -> z[0] != null);
        assertThat(z[0]).isEqualTo(IoResult.OK);
        assertThat(rig.read(X, 16384)).isEqualTo(new byte[16384]);
        rig.flush();
        rig.loop.runFor(1_000 * MS);
        assertThat(rig.backing(X, 16384)).isEqualTo(new byte[16384]);
    }

    @Test
    void aTrimDuringWritebackReachesTheBackingDeviceAfterTheOldData() {
        // Proves trim ordering: the discard waits in the backing write line behind the writeback's old data.
        WritebackRig rig = inFlightAtX(WritebackRig.pattern(7, 16384));
        long writesBefore = rig.hdd.counters().completedSectors(io.blockcache.device.DeviceOp.WRITE);
        IoResult[] t = new IoResult[1];
        rig.volume().discard(X, 16384, r -> t[0] = r);
        rig.loop.step();
        assertThat(t[0]).as("waiting behind the writeback write").isNull();
        rig.loop.runUntil(() -> t[0] != null);
        assertThat(t[0]).isEqualTo(IoResult.OK);
        assertThat(rig.hdd.counters().completedSectors(io.blockcache.device.DeviceOp.WRITE))
                .as("the old data landed before the discard finished")
                .isGreaterThanOrEqualTo(writesBefore + 32);
        settle(rig);
        assertThat(rig.writeback().keysInFlight()).isZero();
        assertThat(rig.volume().index().extents().cachedSectors()).isZero();
        assertThat(rig.dirtySectors()).isZero();
    }

    @Test
    void aReadMissFillRacingAWriteDoesNotInstallOldData() {
        // Proves fill vs write with writeback running: the newer write wins over the fill of older backing data.
        WritebackRig rig = new WritebackRig(64L << 20, 1L << 30);
        byte[] fresh = WritebackRig.pattern(8, 16384);
        ByteBuffer readBuffer = ByteBuffer.allocate(16384);
        IoResult[] r = new IoResult[1];
        rig.volume().read(X, readBuffer, res -> r[0] = res); // miss: fills from the backing device
        IoResult[] w = submitWrite(rig, X, fresh);
        rig.loop.runUntil(() -> r[0] != null && w[0] != null);
        assertThat(rig.volume().stats().fillsRaced()).isEqualTo(1);
        assertThat(rig.read(X, 16384)).isEqualTo(fresh);
        settle(rig);
        assertThat(rig.backing(X, 16384)).isEqualTo(fresh);
        assertThat(rig.read(X, 16384)).isEqualTo(fresh);
    }
}
