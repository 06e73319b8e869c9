package io.blockcache.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.device.IoResult;
import io.blockcache.device.MemoryDevice;
import io.blockcache.loop.Prng;
import io.blockcache.loop.SimLoop;
import io.blockcache.volume.Volume;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

class CacheSetTest {
    private final SimLoop loop = new SimLoop();
    private final CacheSetOptions options = CacheSetOptions.defaults().withBucketSizeBytes(128 << 10)
            .withVerifyIndex(true);
    private final MemoryDevice cache = new MemoryDevice(loop, 8L << 20, 512);
    private final MemoryDevice backing = new MemoryDevice(loop, 17L << 20, 512);

    private <T> T await(Outcome<T>[] box) {
        loop.runUntil(() -> box[0] != null);
        assertThat(box[0]).as("operation finished").isNotNull();
        return box[0].orThrow();
    }

    @SuppressWarnings("unchecked")
    private void format(List<BackingSpec> backings) {
        Outcome<Void>[] box = new Outcome[1];
        CacheSet.format(loop, cache, backings, options, new Prng(1), fraction -> { }, r -> box[0] = r);
        loop.runUntil(() -> box[0] != null);
        assertThat(box[0].error()).isNull();
    }

    @SuppressWarnings("unchecked")
    private Outcome<CacheSet> open(List<BackingSpec> backings) {
        Outcome<CacheSet>[] box = new Outcome[1];
        CacheSet.open(loop, cache, backings, options, r -> box[0] = r);
        loop.runUntil(() -> box[0] != null);
        return box[0];
    }

    private IoResult run(java.util.function.Consumer<io.blockcache.device.IoCallback> op) {
        IoResult[] out = new IoResult[1];
        op.accept(r -> out[0] = r);
        loop.runUntil(() -> out[0] != null);
        return out[0];
    }

    private static byte[] pattern(int seed, int bytes) {
        byte[] data = new byte[bytes];
        new Prng(seed).nextBytes(data);
        return data;
    }

    private byte[] read(Volume volume, long offset, int bytes) {
        ByteBuffer buffer = ByteBuffer.allocate(bytes);
        assertThat(run(cb -> volume.read(offset, buffer, cb))).isEqualTo(IoResult.OK);
        return buffer.array();
    }

    @Test
    void flushedWritesSurviveReopenThroughJournalReplay() {
        // Proves recovery replays the journal: dirty data written and flushed is found again after reopening.
        List<BackingSpec> backings = List.of(new BackingSpec("default", backing));
        format(backings);
        CacheSet set = open(backings).orThrow();
        Volume volume = set.volumes().get(0);
        assertThat(volume.sizeBytes()).isEqualTo(16L << 20);
        byte[] a = pattern(1, 64 << 10);
        byte[] b = pattern(2, 4096);
        assertThat(run(cb -> volume.write(0, ByteBuffer.wrap(a), false, cb))).isEqualTo(IoResult.OK);
        assertThat(run(cb -> volume.write(8192, ByteBuffer.wrap(b), true, cb))).isEqualTo(IoResult.OK);
        assertThat(run(volume::flush)).isEqualTo(IoResult.OK);

        CacheSet reopened = open(backings).orThrow(); // same devices, as after a power cut with nothing lost
        byte[] expected = a.clone();
        System.arraycopy(b, 0, expected, 8192, b.length);
        assertThat(read(reopened.volumes().get(0), 0, a.length)).isEqualTo(expected);
        assertThat(reopened.volumes().get(0).index().extents().dirtySectors()).isEqualTo(128);
    }

    @Test
    void checkpointsLetTheJournalWrapAndStillRecoverEverything() {
        // Proves checkpoints: many commits wrap the ring; reopen loads the checkpoint and replays the rest.
        List<BackingSpec> backings = List.of(new BackingSpec("default", backing));
        format(backings);
        CacheSet set = open(backings).orThrow();
        Volume volume = set.volumes().get(0);
        Prng prng = new Prng(5);
        byte[] model = new byte[1 << 20];
        for (int i = 0; i < 600; i++) {
            int offset = prng.nextInt(255) * 4096;
            byte[] data = pattern(100 + i, 4096);
            System.arraycopy(data, 0, model, offset, data.length);
            assertThat(run(cb -> volume.write(offset, ByteBuffer.wrap(data), true, cb))).isEqualTo(IoResult.OK);
        }
        assertThat(set.checkpointsWritten()).isPositive();
        CacheSet reopened = open(backings).orThrow();
        assertThat(read(reopened.volumes().get(0), 0, model.length)).isEqualTo(model);
    }

    @Test
    void cleanShutdownMarksTheSuperblockAndReopensWarm() {
        // Proves shutdown: a final checkpoint and the clean flag; the next open clears the flag.
        List<BackingSpec> backings = List.of(new BackingSpec("default", backing));
        format(backings);
        CacheSet set = open(backings).orThrow();
        byte[] data = pattern(9, 8192);
        assertThat(run(cb -> set.volumes().get(0).write(4096, ByteBuffer.wrap(data), false, cb)))
                .isEqualTo(IoResult.OK);
        assertThat(run(set::shutdown)).isEqualTo(IoResult.OK);
        assertThat(set.superblock().cleanShutdown()).isTrue();
        CacheSet reopened = open(backings).orThrow();
        assertThat(reopened.superblock().cleanShutdown()).isFalse();
        assertThat(read(reopened.volumes().get(0), 4096, 8192)).isEqualTo(data);
    }

    @Test
    void wrongForeignOrMissingBackingDevicesAreRefusedWithWhatWasFound() {
        // Proves start-up checks: a wrong, missing or extra backing device is refused with a clear message.
        List<BackingSpec> backings = List.of(new BackingSpec("default", backing));
        format(backings);
        MemoryDevice stranger = new MemoryDevice(loop, 17L << 20, 512);
        assertThat(open(List.of(new BackingSpec("default", stranger))).error())
                .contains("header is not readable");
        assertThat(open(List.of()).error()).contains("was not given");
        assertThat(open(List.of(new BackingSpec("default", backing), new BackingSpec("other", stranger))).error())
                .contains("is not attached");
        MemoryDevice blank = new MemoryDevice(loop, 8L << 20, 512);
        Outcome<CacheSet>[] box = newBox();
        CacheSet.open(loop, blank, backings, options, r -> box[0] = r);
        loop.runUntil(() -> box[0] != null);
        assertThat(box[0].error()).contains("no valid blockcache superblock");
    }

    @SuppressWarnings("unchecked")
    private static Outcome<CacheSet>[] newBox() {
        return new Outcome[1];
    }
}
