package io.blockcache.writeback;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.engine.BackingSpec;
import io.blockcache.engine.CacheSet;
import io.blockcache.engine.CacheSetOptions;
import io.blockcache.engine.Outcome;
import io.blockcache.index.ExtentLocation;
import io.blockcache.index.LookupVisitor;
import io.blockcache.loop.Prng;
import io.blockcache.loop.SimLoop;
import io.blockcache.sim.ObjectStoreModel;
import io.blockcache.sim.SmallDevices;
import io.blockcache.sim.SsdModel;
import io.blockcache.volume.Volume;
import java.nio.ByteBuffer;
import java.util.BitSet;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Writeback onto an object store (docs/WRITEBACK.md "Object stores"): dirty data is written back chunk by chunk,
 * whole chunks as one FUA write with their gaps filled from the cache, partial chunks left for the store to fill.
 * The store here has 64 KiB chunks; the volume's data starts 1 MiB into it, on a chunk boundary.
 */
class ChunkWritebackTest {
    private static final int CHUNK = 64 << 10;
    private static final int BLOCK = 4096;
    private static final long MS = 1_000_000L;

    private final SimLoop loop = new SimLoop();
    private final SsdModel ssd = SmallDevices.ssd(loop, 64L << 20);
    private final ObjectStoreModel store = SmallDevices.objectStore(loop, 64L << 20, new Prng(3));
    private final CacheSet set;

    ChunkWritebackTest() {
        List<BackingSpec> backings = List.of(new BackingSpec("vol", store));
        Outcome<?>[] formatted = new Outcome<?>[1];
        CacheSet.format(loop, ssd, backings, CacheSetOptions.defaults(), new Prng(7), f -> { },
                r -> formatted[0] = r);
        loop.runUntil(() -> formatted[0] != null);
        assertThat(formatted[0].error()).isNull();
        @SuppressWarnings("unchecked")
        Outcome<CacheSet>[] opened = new Outcome[1];
        CacheSet.open(loop, ssd, backings, CacheSetOptions.defaults(), r -> opened[0] = r);
        loop.runUntil(() -> opened[0] != null);
        set = opened[0].orThrow();
        tune(false);
    }

    @Test
    void aChunkWrittenWholeGoesBackAsOneFuaPutWithoutAGetAndIsDurable() {
        // Proves whole chunks: 16 dirty 4 KiB blocks written in scattered order make one write of the chunk, which
        // the store takes with one PUT and no GET; once clean, the data survives a power cut of the store.
        byte[][] blocks = new byte[32][];
        for (int i : new int[] {5, 0, 31, 9, 17, 2, 30, 11, 24, 1, 16, 8, 3, 29, 4, 6, 7, 10, 12, 13, 14, 15, 18,
            19, 20, 21, 22, 23, 25, 26, 27, 28}) {
            blocks[i] = pattern(i, BLOCK);
            write((long) i * BLOCK, blocks[i]);
        }
        long putsBefore = store.puts();
        long getsBefore = store.gets();
        drain();
        WritebackCounters c = writeback().counters();
        assertThat(c.chunksWhole()).isEqualTo(2);
        assertThat(c.chunksPartial()).isZero();
        assertThat(store.gets() - getsBefore).isZero();
        assertThat(store.puts() - putsBefore).isEqualTo(2);
        assertThat(c.backingWrites()).isEqualTo(2);
        store.crash(new BitSet()); // whatever was not yet durable vanishes
        store.powerOn(loop);
        for (int i = 0; i < 32; i++) {
            assertThat(backing((long) i * BLOCK, BLOCK)).as("block %d", i).isEqualTo(blocks[i]);
        }
    }

    @Test
    void gapsAreFilledFromCleanCachedDataSoTheStoreNeedsNoGet() {
        // Proves gap filling: a chunk cached clean, then half rewritten, goes back whole (the clean half read from
        // the cache), so the store uploads it without fetching the old chunk.
        for (int i = 0; i < 16; i++) {
            write((long) i * BLOCK, pattern(i, BLOCK));
        }
        drain();
        long getsBefore = store.gets();
        byte[][] expected = rewriteEvenBlocks();
        long wholeBefore = writeback().counters().chunksWhole();
        drain();
        assertThat(writeback().counters().chunksWhole() - wholeBefore).isEqualTo(1);
        assertThat(writeback().counters().chunkFillSectors()).isEqualTo(8 * BLOCK / BlockDevice.SECTOR_BYTES);
        assertThat(store.gets() - getsBefore).isZero();
        assertBackingHolds(expected);
    }

    @Test
    void aChunkWithUncachedGapsIsWrittenInPiecesAndTheStoreFetchesTheRest() {
        // Proves partial chunks: two dirty blocks with nothing cached between them are written alone (FUA), and
        // the store pays one GET for the chunk; the data lands, the rest of the chunk keeps what it had.
        write(0, pattern(1, BLOCK));
        write(8 * BLOCK, pattern(2, BLOCK));
        long getsBefore = store.gets();
        drain();
        assertThat(writeback().counters().chunksPartial()).isEqualTo(1);
        assertThat(writeback().counters().chunkFillSectors()).isZero();
        assertThat(store.gets() - getsBefore).isEqualTo(1);
        assertThat(backing(0, BLOCK)).isEqualTo(pattern(1, BLOCK));
        assertThat(backing(8 * BLOCK, BLOCK)).isEqualTo(pattern(2, BLOCK));
        assertThat(backing(BLOCK, BLOCK)).containsOnly(0);
    }

    @Test
    void aCleanFillThatFailsItsCrcIsReadFromTheStoreAndTheChunkStillGoesBackWhole() {
        // Proves the fill's fallback: a chunk cached clean, one of its clean blocks then damaged on the cache device
        // (bit rot the CRC catches), half of the others rewritten: the damaged fill is read from the store instead
        // (a clean copy equals what the store holds), so the chunk goes back whole with every block right, once,
        // and the drain ends. Before, the chunk failed, backed off and retried with the same bad fill for ever.
        for (int i = 0; i < 16; i++) {
            write((long) i * BLOCK, pattern(i, BLOCK));
        }
        drain();
        long damaged = 3L * BLOCK / BlockDevice.SECTOR_BYTES; // block 3: clean, never rewritten below
        long[] location = {-1};
        volume().index().lookup(damaged, BLOCK / BlockDevice.SECTOR_BYTES, new LookupVisitor() {
            @Override
            public void hole(long startSector, int lengthSectors) {
            }

            @Override
            public void extent(long startSector, int lengthSectors, long at, int crc32c, int crcOffset,
                               int crcLength) {
                location[0] = at;
            }
        });
        assertThat(location[0]).as("block 3 is cached").isNotNegative();
        long deviceOffset = set.superblock().bucketOffsetBytes(ExtentLocation.bucket(location[0]))
                + (long) ExtentLocation.offsetInBucketSectors(location[0]) * BlockDevice.SECTOR_BYTES;
        assertThat(await(cb -> ssd.write(deviceOffset, ByteBuffer.wrap(pattern(777, BLOCK)), true, cb)))
                .isEqualTo(IoResult.OK);
        byte[][] expected = rewriteEvenBlocks();
        long wholeBefore = writeback().counters().chunksWhole();
        drain();
        assertThat(writeback().counters().chunksWhole() - wholeBefore).isEqualTo(1);
        assertThat(writeback().counters().checksumErrors()).isEqualTo(1);
        assertThat(writeback().counters().chunkFillsFromBacking()).isEqualTo(1);
        assertBackingHolds(expected);
    }

    @Test
    void chunksInFlightStayWithinTheirBound() {
        // Proves the named bound: never more chunks in flight than chunks_in_flight_max, and the bound is reached.
        writeback().setSettings(writeback().settings().toBuilder().chunksInFlightMax(4).build());
        for (int chunk = 0; chunk < 40; chunk++) {
            write((long) chunk * CHUNK, pattern(chunk, CHUNK));
        }
        drain();
        assertThat(writeback().counters().chunksInFlightPeak()).isEqualTo(4);
        assertThat(writeback().counters().chunksWhole()).isEqualTo(40);
        assertThat(writeback().dirtyBytes()).isZero();
    }

    @Test
    void chunkBuffersAreBoundedInBytesSoPartialChunksGoDeeperThanWholeOnes() {
        // Proves the byte bound beside the count: with room for 4 whole chunks' buffers and 64 chunks allowed, whole
        // chunks stop at 4 in flight (5: one may start past the bound, checked before it is planned), while chunks
        // that are dirty in one 4 KiB block only (uncached gaps: the store GETs the rest) buffer 4 KiB each and go
        // far deeper; everything drains either way.
        writeback().setSettings(writeback().settings().toBuilder().chunksInFlightMax(64).build());
        writeback().chunkBufferBytesMax(4L * CHUNK);
        for (int chunk = 0; chunk < 40; chunk++) {
            write((long) chunk * CHUNK, pattern(chunk, CHUNK));
        }
        drain();
        assertThat(writeback().counters().chunksInFlightPeak()).isBetween(4L, 5L);
        assertThat(writeback().counters().chunksWhole()).isEqualTo(40);
        for (int chunk = 100; chunk < 400; chunk++) {
            write((long) chunk * CHUNK + BLOCK, pattern(chunk, BLOCK));
        }
        drain();
        assertThat(writeback().counters().chunksPartial()).isEqualTo(300);
        assertThat(writeback().counters().chunksInFlightPeak()).isGreaterThan(16);
        assertThat(backing(399L * CHUNK + BLOCK, BLOCK)).isEqualTo(pattern(399, BLOCK));
    }

    /** Rewrites the even 4 KiB blocks of the first chunk (the odd ones stay as they were); what it now holds. */
    private byte[][] rewriteEvenBlocks() {
        byte[][] expected = new byte[16][];
        for (int i = 0; i < 16; i++) {
            expected[i] = i % 2 == 0 ? pattern(100 + i, BLOCK) : pattern(i, BLOCK);
            if (i % 2 == 0) {
                write((long) i * BLOCK, expected[i]);
            }
        }
        return expected;
    }

    private void assertBackingHolds(byte[][] blocks) {
        for (int i = 0; i < blocks.length; i++) {
            assertThat(backing((long) i * BLOCK, BLOCK)).as("block %d", i).isEqualTo(blocks[i]);
        }
    }

    private Volume volume() {
        return set.volume("vol");
    }

    private Writeback writeback() {
        return set.writeback("vol");
    }

    private void tune(boolean running) {
        writeback().setSettings(writeback().settings().toBuilder().running(running).build());
    }

    /** Lets writeback run until nothing is dirty (the front end idle), then stops it again. */
    private void drain() {
        tune(true);
        long deadlineNs = loop.nowNs() + 60_000 * MS;
        loop.runUntil(() -> (writeback().dirtyBytes() == 0 && writeback().keysInFlight() == 0)
                || loop.nowNs() > deadlineNs);
        assertThat(writeback().dirtyBytes()).as("drained within a minute").isZero();
        tune(false);
    }

    private IoResult await(Consumer<IoCallback> op) {
        IoResult[] out = new IoResult[1];
        op.accept(r -> out[0] = r);
        loop.runUntil(() -> out[0] != null);
        return out[0];
    }

    private void write(long offset, byte[] data) {
        assertThat(await(cb -> volume().write(offset, ByteBuffer.wrap(data), false, cb))).isEqualTo(IoResult.OK);
    }

    private byte[] backing(long offset, int bytes) {
        ByteBuffer buffer = ByteBuffer.allocate(bytes);
        long at = volume().backingOffsetBytes(offset / BlockDevice.SECTOR_BYTES);
        assertThat(await(cb -> store.read(at, buffer, cb))).isEqualTo(IoResult.OK);
        return buffer.array();
    }

    private static byte[] pattern(long seed, int bytes) {
        byte[] data = new byte[bytes];
        new Prng(seed).nextBytes(data);
        return data;
    }
}
