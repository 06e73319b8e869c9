package io.blockcache.writeback;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.device.IoResult;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * Writeback over a backing device that changed under it ({@code Writeback.backingChanged}, {@code
 * BlockDevice.checkPresence}): held for good, drains refused, dirty data kept; and a drain never reports clean over a
 * backing file that left its path, even when the periodic check has not seen it yet.
 */
class BackingChangedTest {
    private static final String DELETED = "file /data/vol.img was deleted while open";

    @Test
    void aDrainChecksTheBackingDeviceBeforeItReportsClean() {
        // Proves a drain that wrote everything still fails, naming the file, when the backing file is found gone at
        // the end: "clean" would mean the data is on a file that no longer exists at its path.
        WritebackRig rig = new WritebackRig(64L << 20, 256L << 20);
        rig.tune(b -> b.running(false));
        rig.write(0, WritebackRig.pattern(1, 256 << 10));
        rig.flush();
        rig.backingDevice.presenceProblem = DELETED;

        IoResult drained = rig.await(cb -> rig.set.drain(WritebackRig.NAME, progress -> { }, cb));

        assertThat(drained.ok()).isFalse();
        assertThat(drained.message()).isEqualTo("drain stopped: backing " + DELETED + "; restore it (or its"
                + " replacement) at that path and restart; the dirty data stays in the cache");
        assertThat(rig.writeback().degraded()).isEqualTo("backing " + DELETED + "; restore it (or its replacement) at"
                + " that path and restart");
        assertThat(rig.writeback().drainJob().describeState()).isEqualTo("failed");
    }

    @Test
    void aChangedBackingHoldsWritebackWhateverTheKnobsAndDrainsSay() {
        // Proves the hold: after backingChanged no writeback write reaches the device, neither with running=true
        // nor under a drain, the drain fails at once naming the file, and the dirty data stays dirty and readable.
        WritebackRig rig = new WritebackRig(64L << 20, 256L << 20);
        rig.tune(b -> b.running(false));
        byte[] data = WritebackRig.pattern(2, 256 << 10);
        rig.write(0, data);
        rig.flush();
        long dirty = rig.dirtySectors();
        rig.writeback().backingChanged(DELETED);
        rig.backingDevice.recording = true;

        rig.tune(b -> b.running(true));
        rig.loop.runFor(5_000_000_000L);
        IoResult drained = rig.await(cb -> rig.set.drain(WritebackRig.NAME, progress -> { }, cb));
        rig.loop.runFor(1_000_000_000L);

        assertThat(drained.message()).startsWith("drain stopped: backing " + DELETED);
        assertThat(rig.backingDevice.ops).as("writeback's writes and flushes after the change").isEmpty();
        assertThat(rig.dirtySectors()).isEqualTo(dirty);
        assertThat(rig.read(0, data.length)).isEqualTo(data);
        assertThat(rig.writeback().lastError()).startsWith("backing " + DELETED);
    }

    @Test
    void anOverwriteThatWouldWaitForOlderEpochsIsRefusedNotHeldForever() {
        // Proves that with ordering=epochs a write that must wait for writeback is refused, naming the file, once
        // writeback is held until a restart: held, it would wait for ever.
        WritebackRig rig = new WritebackRig(64L << 20, 256L << 20);
        rig.tune(b -> b.running(false).ordering(WritebackOrdering.EPOCHS));
        rig.write(0, WritebackRig.pattern(3, 64 << 10));
        rig.flush();
        rig.writeback().backingChanged(DELETED);

        IoResult[] answer = new IoResult[1];
        rig.volume().write(0, ByteBuffer.wrap(WritebackRig.pattern(4, 64 << 10)), false, r -> answer[0] = r);
        rig.loop.runFor(2_000_000_000L); // bounded: held, the write would never be answered
        IoResult overwrite = answer[0];

        assertThat(overwrite).as("the overwrite was answered").isNotNull();
        assertThat(overwrite.ok()).isFalse();
        assertThat(overwrite.message()).isEqualTo("waiting for older epochs to be written back, but writeback backing "
                + DELETED + "; restore it (or its replacement) at that path and restart");
        assertThat(rig.read(0, 64 << 10)).isEqualTo(WritebackRig.pattern(3, 64 << 10));
    }
}
