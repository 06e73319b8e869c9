package io.blockcache.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.ForwardingDevice;
import io.blockcache.device.IoResult;
import io.blockcache.device.MemoryDevice;
import io.blockcache.format.CacheSuperblock;
import io.blockcache.loop.Prng;
import io.blockcache.volume.Volume;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** A cache device grown before open ({@link CacheSet#grow}), driven on a simulated loop. */
class CacheGrowTest {
    private final SimCacheSet sim = new SimCacheSet();
    /** The larger device the cache moves onto: its first 8 MiB are what the cache was formatted on. */
    private final MemoryDevice large = new MemoryDevice(sim.loop, 16L << 20, 512);
    private final BlockDevice small = new Prefix(large, 8L << 20);

    @Test
    void aGrownCacheKeepsItsDataAndUsesTheNewBucketsAcrossCrashes() {
        // Proves a grow keeps every acknowledged byte (dirty, not yet written back) and that the new buckets take data
        // that survives a power cut: the superblock names twice the buckets, the open finds them free, and 7 MiB
        // written after the grow (with the dirty cutoffs raised: more dirty data than the old cache held) read back
        // after a crash.
        format(small);
        CacheSet before = open(small);
        int bucketsBefore = before.superblock().bucketCount();
        before.knobs().find("writeback." + SimCacheSet.EXPORT + ".running").set("false");
        Volume volume = before.volume(SimCacheSet.EXPORT);
        byte[] first = SimCacheSet.pattern(3, 2 << 20);
        sim.writeOk(volume, 0, first);
        sim.flushOk(volume);
        sim.crash();

        CacheSet.Growth growth = grow(large);
        assertThat(growth.bucketsBefore()).isEqualTo(bucketsBefore);
        assertThat(growth.bucketsAfter()).isEqualTo(bucketsBefore + 64); // 8 MiB more of 128 KiB buckets
        assertThat(growth.addedBytes()).isEqualTo(8L << 20);
        CacheSet after = open(large);
        assertThat(after.superblock().bucketCount()).isEqualTo(growth.bucketsAfter());
        after.knobs().find("writeback." + SimCacheSet.EXPORT + ".running").set("false");
        after.knobs().find("volume." + SimCacheSet.EXPORT + ".cutoff_writeback_sync_percent").set("90");
        after.knobs().find("volume." + SimCacheSet.EXPORT + ".cutoff_writeback_percent").set("90");
        after.knobs().find("volume." + SimCacheSet.EXPORT + ".throttle_start_percent").set("100");
        after.knobs().find("volume." + SimCacheSet.EXPORT + ".sequential_cutoff_bytes").set("0");
        Volume grown = after.volume(SimCacheSet.EXPORT);
        assertThat(sim.readOk(grown, 0, first.length)).as("dirty data from before the grow").isEqualTo(first);
        byte[] more = SimCacheSet.pattern(5, 7 << 20);
        for (int at = 0; at < more.length; at += 128 << 10) { // in pieces: one large write would go around the cache
            sim.writeOk(grown, (2 << 20) + at, java.util.Arrays.copyOfRange(more, at, at + (128 << 10)));
        }
        sim.flushOk(grown);
        assertThat(after.volume(SimCacheSet.EXPORT).index().extents().dirtySectors() * 512)
                .as("all of it dirty in the cache: more than the old cache could hold").isGreaterThan(8L << 20);
        sim.crash();
        CacheSet reopened = open(large);
        Volume again = reopened.volume(SimCacheSet.EXPORT);
        assertThat(sim.readOk(again, 0, first.length)).isEqualTo(first);
        assertThat(sim.readOk(again, 2 << 20, more.length)).isEqualTo(more);
        assertThat(grow(large).bucketsAfter()).as("a second grow finds nothing to add")
                .isEqualTo(growth.bucketsAfter());
    }

    @Test
    void aCrashInTheMiddleOfTheSuperblockRewriteOpensOneGeometryOrTheOther() {
        // Proves the superblock pair is the commit point: with only copy A rewritten the open takes the grown
        // geometry (the newer sequence), with neither the old one on the larger device; both keep the data.
        format(small);
        CacheSet before = open(small);
        byte[] data = SimCacheSet.pattern(9, 1 << 20);
        sim.writeOk(before.volume(SimCacheSet.EXPORT), 0, data);
        sim.flushOk(before.volume(SimCacheSet.EXPORT));
        sim.crash();
        byte[] old = sim.rawRead(large, 0, 2 * CacheSuperblock.BYTES);
        int oldCount = CacheSuperblock.decode(old, 0).value().bucketCount();

        CacheSet.Growth growth = grow(large);
        sim.rawWrite(large, CacheSuperblock.BYTES, java.util.Arrays.copyOfRange(old, CacheSuperblock.BYTES,
                2 * CacheSuperblock.BYTES)); // copy B as it was: the cut came after copy A
        CacheSet halfway = open(large);
        assertThat(halfway.superblock().bucketCount()).isEqualTo(growth.bucketsAfter());
        assertThat(sim.readOk(halfway.volume(SimCacheSet.EXPORT), 0, data.length)).isEqualTo(data);
        sim.crash();

        sim.rawWrite(large, 0, old); // neither copy rewritten: the cut came before the grow's first write
        CacheSet notYet = open(large);
        assertThat(notYet.superblock().bucketCount()).isEqualTo(oldCount);
        assertThat(sim.readOk(notYet.volume(SimCacheSet.EXPORT), 0, data.length)).isEqualTo(data);
    }

    @Test
    void aDeviceNoLargerThanTheCacheGrowsNothingAndNothingIsWritten() {
        // Proves a grow onto a device that holds no further whole bucket writes nothing: the superblocks keep their
        // sequence.
        format(small);
        sim.crash();
        byte[] before = sim.rawRead(large, 0, 2 * CacheSuperblock.BYTES);
        CacheSet.Growth growth = grow(new Prefix(large, (8L << 20) + (64 << 10)));
        assertThat(growth.bucketsAfter()).isEqualTo(growth.bucketsBefore());
        assertThat(growth.addedBytes()).isZero();
        assertThat(sim.rawRead(large, 0, 2 * CacheSuperblock.BYTES)).isEqualTo(before);
    }

    private void format(BlockDevice cache) {
        Outcome<Void> formatted = sim.await(done -> CacheSet.format(sim.loop, cache, sim.backings(),
                SimCacheSet.OPTIONS, new Prng(1), fraction -> { }, done));
        assertThat(formatted.error()).isNull();
    }

    private CacheSet open(BlockDevice cache) {
        Outcome<CacheSet> opened = sim.open(cache, sim.backings());
        assertThat(opened.error()).as("open").isNull();
        return opened.value();
    }

    private CacheSet.Growth grow(BlockDevice cache) {
        Outcome<CacheSet.Growth> grown = sim.await(done -> CacheSet.grow(cache, done));
        assertThat(grown.error()).as("grow").isNull();
        return grown.value();
    }

    /** The first {@code sizeBytes} of a device: the smaller device a cache was formatted on before it grew. */
    private static final class Prefix extends ForwardingDevice {
        private final long sizeBytes;

        Prefix(BlockDevice inner, long sizeBytes) {
            super(inner);
            this.sizeBytes = sizeBytes;
        }

        @Override
        public long sizeBytes() {
            return sizeBytes;
        }

        @Override
        public void write(long offsetBytes, ByteBuffer src, boolean fua, io.blockcache.device.IoCallback callback) {
            if (offsetBytes + src.remaining() > sizeBytes) {
                callback.complete(IoResult.error(io.blockcache.device.IoStatus.IO_ERROR, "beyond the prefix"));
                return;
            }
            super.write(offsetBytes, src, fua, callback);
        }
    }

}
