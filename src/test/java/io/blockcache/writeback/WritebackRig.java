package io.blockcache.writeback;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.engine.BackingSpec;
import io.blockcache.format.BackingHeader;
import io.blockcache.engine.CacheSet;
import io.blockcache.engine.CacheSetOptions;
import io.blockcache.engine.Outcome;
import io.blockcache.loop.Prng;
import io.blockcache.loop.SimLoop;
import io.blockcache.sim.HddConfig;
import io.blockcache.sim.HddModel;
import io.blockcache.sim.SsdConfig;
import io.blockcache.sim.SsdModel;
import io.blockcache.volume.Volume;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * A cache set on a simulated SSD (cache) and HDD (backing, volatile write cache on) in virtual time, with helpers
 * that run requests to completion. Crash and reopen keep the same device instances.
 */
final class WritebackRig {
    static final int BUCKET_BYTES = 128 << 10;
    static final String NAME = "vol";

    SimLoop loop = new SimLoop();
    final SsdModel ssd;
    final HddModel hdd;
    final RecordingDevice cacheDevice;
    final RecordingDevice backingDevice;
    CacheSet set;

    WritebackRig(long cacheBytes, long backingBytes) {
        this(cacheBytes, backingBytes, 0);
    }

    /** As above, the backing device formatted with a backing log of {@code logBytes} (0: none). */
    WritebackRig(long cacheBytes, long backingBytes, long logBytes) {
        ssd = new SsdModel(loop, new SsdConfig(cacheBytes, 80_000, 20_000, 8, 3_000_000_000L, 2_000_000_000L,
                4L << 20, 1_000_000));
        hdd = new HddModel(loop, new HddConfig(backingBytes, 7200, 800_000, 8_500_000, 16_000_000, 250_000_000,
                120_000_000, 16, 32, true, 8L << 20, 550_000_000));
        cacheDevice = new RecordingDevice(ssd);
        backingDevice = new RecordingDevice(hdd);
        backingDevice.recordWritesFromBytes = BackingHeader.DEFAULT_DATA_OFFSET_BYTES; // writeback's writes only
        List<BackingSpec> backings = List.of(new BackingSpec(NAME, backingDevice).withLogSizeBytes(logBytes));
        Outcome<?>[] formatted = new Outcome<?>[1];
        CacheSet.format(loop, cacheDevice, backings, options(), new Prng(7), f -> { }, r -> formatted[0] = r);
        loop.runUntil(() -> formatted[0] != null);
        assertThat(formatted[0].error()).isNull();
        open(UnaryOperator.identity());
    }

    static CacheSetOptions options() {
        return CacheSetOptions.defaults().withBucketSizeBytes(BUCKET_BYTES).withDamageMap(true);
    }

    /** Opens the cache set on the current loop; {@code tune} adjusts writeback settings before anything runs. */
    void open(UnaryOperator<WritebackSettings.Builder> tune) {
        @SuppressWarnings("unchecked")
        Outcome<CacheSet>[] box = new Outcome[1];
        CacheSet.open(loop, cacheDevice, List.of(new BackingSpec(NAME, backingDevice)), options(), r -> {
            box[0] = r;
            if (r.isOk()) {
                Writeback wb = r.value().writeback(NAME);
                wb.setSettings(tune.apply(wb.settings().toBuilder()).build());
            }
        });
        loop.runUntil(() -> box[0] != null);
        set = box[0].orThrow();
    }

    /** Cuts the power of both devices at this instant and reopens on a fresh loop. */
    void crashAndReopen(Prng fate, UnaryOperator<WritebackSettings.Builder> tune) {
        loop.discardPending();
        ssd.crash(fate);
        hdd.crash(fate);
        loop = new SimLoop();
        ssd.powerOn(loop);
        hdd.powerOn(loop);
        open(tune);
    }

    void tune(UnaryOperator<WritebackSettings.Builder> tune) {
        writeback().setSettings(tune.apply(writeback().settings().toBuilder()).build());
    }

    Volume volume() {
        return set.volume(NAME);
    }

    Writeback writeback() {
        return set.writeback(NAME);
    }

    IoResult await(Consumer<IoCallback> op) {
        IoResult[] out = new IoResult[1];
        op.accept(r -> out[0] = r);
        loop.runUntil(() -> out[0] != null);
        assertThat(out[0]).as("request completed").isNotNull();
        return out[0];
    }

    void write(long offset, byte[] data) {
        assertThat(await(cb -> volume().write(offset, ByteBuffer.wrap(data), false, cb))).isEqualTo(IoResult.OK);
    }

    void flush() {
        assertThat(await(cb -> volume().flush(cb))).isEqualTo(IoResult.OK);
    }

    byte[] read(long offset, int bytes) {
        ByteBuffer buffer = ByteBuffer.allocate(bytes);
        assertThat(await(cb -> volume().read(offset, buffer, cb))).isEqualTo(IoResult.OK);
        return buffer.array();
    }

    /** The backing device's contents at a volume offset (what writeback put there). */
    byte[] backing(long offset, int bytes) {
        ByteBuffer buffer = ByteBuffer.allocate(bytes);
        assertThat(await(cb -> hdd.read(volume().backingOffsetBytes(offset / BlockDevice.SECTOR_BYTES), buffer, cb)))
                .isEqualTo(IoResult.OK);
        return buffer.array();
    }

    long dirtySectors() {
        return volume().index().extents().dirtySectors();
    }

    static byte[] pattern(long seed, int bytes) {
        byte[] data = new byte[bytes];
        new Prng(seed).nextBytes(data);
        return data;
    }
}
