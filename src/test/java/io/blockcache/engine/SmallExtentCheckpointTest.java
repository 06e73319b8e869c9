package io.blockcache.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.cache.BucketState;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.device.MemoryDevice;
import io.blockcache.loop.Prng;
import io.blockcache.loop.SimLoop;
import io.blockcache.volume.Volume;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * A cache filled with 512-byte extents, eight times as many as a fixed checkpoint reserve was sized for (4 KiB on
 * average): random sector-sized writes, as {@code fio --rw=randwrite --bs=512} sends.
 */
class SmallExtentCheckpointTest {
    private static final long OPERATION_TIME_MAX_NS = TimeUnit.SECONDS.toNanos(60);
    private static final int WRITES = 40_000;

    private final SimCacheSet sim = new SimCacheSet();

    @Test
    void randomSectorWritesNeverStopCheckpointsAndEveryWriteSurvivesACrash() {
        // Proves the checkpoint reserve grows with the extents: 40,000 random 512-byte writes with a FLUSH every 64
        // all complete (with a fixed reserve a FLUSH after about 12,000 writes never answered: every checkpoint
        // failed for want of a bucket and the journal ring stayed full), metadata never holds more than the reserve,
        // checkpoints keep completing, and after a power cut every flushed sector reads back.
        CacheSetOptions options = SimCacheSet.OPTIONS.withVerifyIndex(false); // the index is checked once, below
        Outcome<Void> formatted = sim.await(done -> CacheSet.format(sim.loop, sim.cache, sim.backings(), options,
                new Prng(1), fraction -> { }, done));
        assertThat(formatted.error()).isNull();
        CacheSet set = open(options);
        Volume volume = set.volume(SimCacheSet.EXPORT);
        int sectors = (int) (volume.sizeBytes() / 512);
        int[] model = new int[sectors]; // the write number last written to each sector, 0 = never
        Prng prng = new Prng(7);
        int reserveMax = 0;
        for (int i = 1; i <= WRITES; i++) {
            int sector = prng.nextInt(sectors);
            model[sector] = i;
            ByteBuffer data = ByteBuffer.allocate(512).putInt(0, i);
            assertThat(bounded(cb -> volume.write(sector * 512L, data, false, cb))).as("write %s", i)
                    .isEqualTo(IoResult.OK);
            if (i % 64 == 0) {
                assertThat(bounded(volume::flush)).as("flush after write %s", i).isEqualTo(IoResult.OK);
            }
            int reserve = set.space().allocator().metadataReserveBuckets();
            reserveMax = Math.max(reserveMax, reserve);
            assertThat(set.buckets(BucketState.METADATA)).as("metadata buckets after write %s", i)
                    .isLessThanOrEqualTo(reserve);
        }
        long before = set.checkpointsWritten();
        assertThat(bounded(set::checkpoint)).isEqualTo(IoResult.OK);
        assertThat(set.checkpointsWritten()).isGreaterThan(before).isGreaterThanOrEqualTo(5);
        assertThat(reserveMax).as("the reserve grew past the 4 KiB floor").isGreaterThan(4);

        sim.crash();
        CacheSet reopened = open(options);
        Volume after = reopened.volume(SimCacheSet.EXPORT);
        for (int sector = 0; sector < sectors; sector++) {
            ByteBuffer read = ByteBuffer.allocate(512);
            int at = sector;
            assertThat(bounded(cb -> after.read(at * 512L, read, cb))).isEqualTo(IoResult.OK);
            assertThat(read.getInt(0)).as("sector %s", sector).isEqualTo(model[sector]);
        }
    }

    @Test
    void aReserveThatShrinksStillLeavesTheNextCheckpointRoomBesideTheDurableOne() {
        // Proves the reserve does not shrink below what the durable checkpoint holds plus the next one: random
        // 512-byte writes make the durable checkpoint of a 64 MiB cache large; a trim of the whole volume then leaves
        // almost no extents, and the next checkpoints still find buckets (a reserve sized by the extents alone fell
        // below the durable checkpoint's buckets, and metadata at that cap refused the next checkpoint every bucket).
        checkpointsAfterTheExtentsShrink(false);
    }

    @Test
    void aReserveAfterAnUncleanOpenLeavesTheNextCheckpointRoomBesideTheRecoveredOne() {
        // Proves the same for the checkpoint found at an open after a power cut: the reserve keeps room beside it
        // although the extents of the opened cache (trimmed, or clean ones dropped) need far fewer buckets.
        checkpointsAfterTheExtentsShrink(true);
    }

    private void checkpointsAfterTheExtentsShrink(boolean powerCutBeforeTheTrim) {
        SimLoop loop = new SimLoop();
        MemoryDevice cache = new MemoryDevice(loop, 64L << 20, 512);
        List<BackingSpec> backings = List.of(new BackingSpec(SimCacheSet.EXPORT,
                new MemoryDevice(loop, 129L << 20, 512)));
        CacheSetOptions options = SimCacheSet.OPTIONS.withVerifyIndex(false);
        Outcome<Void> formatted = SimCacheSet.await(loop, done -> CacheSet.format(loop, cache, backings, options,
                new Prng(2), fraction -> { }, done));
        assertThat(formatted.error()).isNull();
        CacheSet set = open(loop, cache, backings, options);
        Volume volume = set.volume(SimCacheSet.EXPORT);
        int sectors = (int) (volume.sizeBytes() / 512);
        Prng prng = new Prng(11);
        for (int i = 1; i <= 100_000; i++) {
            long at = prng.nextInt(sectors) * 512L;
            assertThat(bounded(loop, cb -> volume.write(at, ByteBuffer.allocate(512), false, cb)))
                    .isEqualTo(IoResult.OK);
        }
        assertThat(bounded(loop, set::checkpoint)).isEqualTo(IoResult.OK);
        int durableBuckets = set.buckets(BucketState.METADATA);
        int floor = Geometry.metadataReserveBuckets(set.superblock().bucketCount()
                - set.superblock().journalBuckets(), set.superblock().bucketSizeBytes());
        assertThat(durableBuckets).as("the durable checkpoint outgrew the 4 KiB floor's half").isGreaterThan(floor / 2);
        if (powerCutBeforeTheTrim) {
            loop.discardPending();
            set = open(loop, cache, backings, options);
        }
        Volume trimmed = set.volume(SimCacheSet.EXPORT);
        assertThat(bounded(loop, cb -> trimmed.discard(0, trimmed.sizeBytes(), cb))).isEqualTo(IoResult.OK);
        for (int round = 0; round < 3; round++) {
            assertThat(bounded(loop, set::checkpoint)).as("checkpoint %s after the trim (durable one: %s buckets, "
                    + "floor %s)", round, durableBuckets, floor).isEqualTo(IoResult.OK);
        }
    }

    private static CacheSet open(SimLoop loop, MemoryDevice cache, List<BackingSpec> backings,
                                 CacheSetOptions options) {
        Outcome<CacheSet> opened = SimCacheSet.await(loop, done -> CacheSet.open(loop, cache, backings, options,
                done));
        assertThat(opened.error()).as("open").isNull();
        return opened.value();
    }

    private CacheSet open(CacheSetOptions options) {
        Outcome<CacheSet> opened = sim.await(done -> CacheSet.open(sim.loop, sim.cache, sim.backings(), options,
                done));
        assertThat(opened.error()).as("open").isNull();
        return opened.value();
    }

    private IoResult bounded(Consumer<IoCallback> op) {
        return bounded(sim.loop, op);
    }

    /** Runs {@code op} to its answer, or fails once 60 s of simulated time pass without one (a hang). */
    private static IoResult bounded(SimLoop loop, Consumer<IoCallback> op) {
        IoResult[] answer = new IoResult[1];
        op.accept(result -> answer[0] = result);
        long deadlineNs = loop.nowNs() + OPERATION_TIME_MAX_NS;
        loop.runUntil(() -> answer[0] != null || loop.nowNs() > deadlineNs);
        assertThat(answer[0]).as("answered within 60 s of simulated time").isNotNull();
        return answer[0];
    }
}
