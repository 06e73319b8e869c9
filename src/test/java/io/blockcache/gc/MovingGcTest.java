package io.blockcache.gc;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.cache.BucketTable;
import io.blockcache.device.BlockDevice;
import io.blockcache.device.ForwardingDevice;
import io.blockcache.device.IoCallback;
import io.blockcache.index.ExtentLocation;
import io.blockcache.index.LookupVisitor;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

class MovingGcTest {
    /**
     * Delegates to the SSD; records the writes {@code recorded} selects, and once armed holds back the first write
     * that {@code which} selects.
     */
    private static final class GatedDevice extends ForwardingDevice {
        Predicate<ByteBuffer> which;
        Runnable held;
        Predicate<ByteBuffer> recorded;
        final List<byte[]> writes = new ArrayList<>();

        GatedDevice(BlockDevice device) {
            super(device);
        }

        @Override
        public void write(long offsetBytes, ByteBuffer src, boolean fua, IoCallback callback) {
            if (recorded != null && recorded.test(src)) {
                byte[] bytes = new byte[src.remaining()];
                src.duplicate().get(bytes);
                writes.add(bytes);
            }
            if (which != null && which.test(src)) {
                which = null;
                held = () -> inner().write(offsetBytes, src, fua, callback);
                return;
            }
            inner().write(offsetBytes, src, fua, callback);
        }
    }

    /** True if {@code src} starts with version 1 of one of blocks 28..31: a copy of the sparse bucket's data. */
    private static boolean startsWithAMovedBlock(ByteBuffer src) {
        if (src.remaining() < GcHarness.BLOCK_BYTES) {
            return false;
        }
        byte[] head = new byte[GcHarness.BLOCK_BYTES];
        src.duplicate().get(head);
        for (int block = 28; block < 32; block++) {
            if (Arrays.equals(head, GcHarness.block(block, 1))) {
                return true;
            }
        }
        return false;
    }

    private GatedDevice gate;
    private final GcHarness h = new GcHarness(device -> gate = new GatedDevice(device));

    private int bucketOf(long block) {
        return ExtentLocation.bucket(locationOf(block));
    }

    private long locationOf(long block) {
        long[] found = {-1};
        h.volume().index().lookup(block * 8, 8, new LookupVisitor() {
            @Override
            public void hole(long startSector, int lengthSectors) {
            }

            @Override
            public void extent(long startSector, int lengthSectors, long location, int crc, int off, int len) {
                found[0] = location;
            }
        });
        return found[0];
    }

    @Test
    void movingGcRelocatesLiveDataWhileARacingOverwriteWinsAndARacingTrimStaysTrimmed() {
        // Proves moving GC: the live extents of a sparse bucket move and survive reopen (dirty ones journaled);
        // a front-end overwrite during the copy keeps the new data; a trim during the copy stays a hole.
        for (int i = 0; i < 32; i++) {
            h.write(i, GcHarness.block(i, 1), false); // one 128 KiB bucket of dirty 4 KiB extents
        }
        int sparse = bucketOf(28);
        for (int i = 0; i < 28; i++) {
            h.write(i, GcHarness.block(i, 2), false); // leaves blocks 28..31 in it: 12.5 % live
        }
        h.checkpoint();
        BucketTable table = h.set.space().table();
        assertThat(table.liveSectors(sparse)).isEqualTo(32);
        h.gc().setConfig(h.gc().config().withMoving(25, 16, 100));

        boolean[] done = gcHoldingTheFirstDataWrite();
        assertThat(gate.held).as("moving GC wrote the pieces").isNotNull();
        h.write(28, GcHarness.block(28, 3), false); // overwrite while its copy is in flight
        h.trim(29, 1);                             // trim while its copy is in flight
        gate.held.run();
        h.loop.runUntil(() -> done[0]);

        assertThat(h.read(28, 1)).isEqualTo(GcHarness.block(28, 3));
        assertThat(h.read(29, 1)).isEqualTo(new byte[4096]);
        assertThat(h.read(30, 2)).isEqualTo(concat(GcHarness.block(30, 1), GcHarness.block(31, 1)));
        assertThat(bucketOf(30)).isNotEqualTo(sparse);
        assertThat(bucketOf(31)).isNotEqualTo(sparse);
        assertThat(table.liveSectors(sparse)).isZero();
        assertThat(h.gc().stats().movedBytes()).isGreaterThanOrEqualTo(2 * 4096);

        h.flush();
        long dirtyBefore = h.volume().index().extents().dirtySectors();
        h.open(); // reopen from the devices: the journal must hold the moved dirty extents
        assertThat(h.volume().index().extents().dirtySectors()).isEqualTo(dirtyBefore);
        assertThat(h.read(28, 4)).isEqualTo(concat(GcHarness.block(28, 3), new byte[4096], GcHarness.block(30, 1),
                GcHarness.block(31, 1)));
    }

    @Test
    void compactsASparseDirtyBucketOnlyOnceMoreThanThirtyFivePercentOfTheBucketsHoldDirtyData() {
        // Proves compaction (docs/GC.md "Compaction"): with free buckets plentiful, so the space rule never moves,
        // a dirty bucket 12.5 % live stays where it is while 33 % of the data buckets hold dirty data (above the
        // 30 % stop mark, not above the 35 % start), and is moved (and survives a reopen) at 37 %. Full buckets are
        // never moved.
        h.gc().setConfig(h.gc().config().withMoving(25, 16, 0));
        h.read(5000, 32); // read-miss fills: a bucket of clean data ...
        h.loop.runFor(100_000_000L); // (the fills complete after the read)
        int sparseClean = bucketOf(5028);
        assertThat(sparseClean).as("filled").isNotNegative();
        h.trim(5000, 28); // ... 12.5 % live, which compaction must leave alone
        for (int i = 0; i < 32; i++) {
            h.write(i, GcHarness.block(i, 1), false); // one 128 KiB bucket of dirty 4 KiB extents
        }
        int sparse = bucketOf(28);
        assertThat(sparse).isNotEqualTo(sparseClean);
        for (int i = 0; i < 28; i++) {
            h.write(i, GcHarness.block(i, 2), false); // leaves blocks 28..31 in it: 12.5 % live
        }
        for (int i = 0; i < 18 * 32; i++) {
            h.write(1000 + i, GcHarness.block(1000 + i, 1), false); // 18 more buckets, all live and dirty
        }
        h.gcNow();
        assertThat(bucketOf(28)).as("20 of 60 buckets dirty (33 %): nothing compacted").isEqualTo(sparse);
        assertThat(h.gc().stats().compactedBuckets()).isZero();
        assertThat(h.gc().stats().movedBytes()).isZero();

        for (int i = 18 * 32; i < 20 * 32; i++) {
            h.write(1000 + i, GcHarness.block(1000 + i, 1), false); // 2 more: 22 of 60 buckets dirty (37 %)
        }
        h.gcNow();
        assertThat(bucketOf(28)).as("22 of 60 buckets dirty: compacted").isNotEqualTo(sparse);
        assertThat(h.set.space().table().liveSectors(sparse)).isZero();
        assertThat(h.gc().stats().compactedBuckets()).isPositive();
        assertThat(h.gc().stats().movedBytes()).as("only the sparse dirty bucket's 4 blocks").isEqualTo(4 * 4096);
        assertThat(bucketOf(5028)).isEqualTo(sparseClean);

        h.flush();
        h.open();
        assertThat(h.read(28, 4)).isEqualTo(concat(GcHarness.block(28, 1), GcHarness.block(29, 1),
                GcHarness.block(30, 1), GcHarness.block(31, 1)));
        assertThat(h.read(0, 1)).isEqualTo(GcHarness.block(0, 2));
    }

    @Test
    void aRoundOfPiecesIsCopiedWithOneWrite() {
        // Proves the rounds (MovingGc.PIECES_PER_ROUND): the sparse bucket's four live 4 KiB pieces are read, then
        // written to the GC write point back to back with one device write, in order, and re-pointed. (One write
        // per piece was a system call each on the loop thread: docs/bench-history/nbd.md "2026-12-03: the dirty-overlap
        // look-up put off".)
        for (int i = 0; i < 32; i++) {
            h.write(i, GcHarness.block(i, 1), false);
        }
        int sparse = bucketOf(28);
        for (int i = 0; i < 28; i++) {
            h.write(i, GcHarness.block(i, 2), false); // blocks 28..31 left in it: four pieces
        }
        h.gc().setConfig(h.gc().config().withMoving(25, 16, 100));
        gate.recorded = MovingGcTest::startsWithAMovedBlock;
        boolean[] done = {false};
        h.gc().gc(r -> done[0] = true);
        h.loop.runUntil(() -> done[0]);

        byte[] moved = concat(GcHarness.block(28, 1), GcHarness.block(29, 1), GcHarness.block(30, 1),
                GcHarness.block(31, 1));
        assertThat(gate.writes).as("writes of moved data").hasSize(1);
        assertThat(gate.writes.get(0)).isEqualTo(moved);
        assertThat(h.gc().stats().movedBytes()).isEqualTo(4 * 4096);
        assertThat(h.set.space().table().liveSectors(sparse)).isZero();
        assertThat(bucketOf(28)).isNotEqualTo(sparse).isEqualTo(bucketOf(31));
        assertThat(h.read(28, 4)).isEqualTo(moved);

        h.flush();
        h.open(); // each piece was re-pointed (and journaled) on its own, with its own CRC
        assertThat(h.read(28, 4)).isEqualTo(moved);
        assertThat(h.read(29, 2)).isEqualTo(Arrays.copyOfRange(moved, 4096, 3 * 4096));
    }

    @Test
    void aSpanShorterThanItsPooledBufferIsVerifiedOverItsOwnBytes() {
        // Proves the span is checked over its own length: a 12 KiB extent is read into a pooled 16 KiB buffer, and a
        // CRC over the whole buffer (its old bytes included) would fail the check and leave the extent unmoved.
        for (int i = 0; i < 29; i++) {
            h.write(i, GcHarness.block(i, 1), false);
        }
        byte[] span = concat(GcHarness.block(29, 1), GcHarness.block(30, 1), GcHarness.block(31, 1));
        h.write(29, span, false); // one extent of three blocks, one CRC
        int sparse = bucketOf(29);
        assertThat(bucketOf(0)).as("the extent shares the first blocks' bucket").isEqualTo(sparse);
        for (int i = 0; i < 29; i++) {
            h.write(i, GcHarness.block(i, 2), false);
        }
        h.gc().setConfig(h.gc().config().withMoving(25, 16, 100));
        boolean[] done = {false};
        h.gc().gc(r -> done[0] = true);
        h.loop.runUntil(() -> done[0]);

        assertThat(h.gc().stats().moveChecksumFailures()).isZero();
        assertThat(h.gc().stats().movedBytes()).isEqualTo(span.length);
        assertThat(h.set.space().table().liveSectors(sparse)).isZero();
        long moved = locationOf(29);
        assertThat(h.set.space().allocator().blockChecksums().covers(ExtentLocation.bucket(moved),
                ExtentLocation.offsetInBucketSectors(moved), 24)).as("the copy's blocks have CRCs").isTrue();
        assertThat(h.read(29, 3)).isEqualTo(span);
        assertThat(h.read(30, 1)).isEqualTo(GcHarness.block(30, 1));
    }

    /** Starts a GC run whose first write of moved data is held; runs until it is. */
    private boolean[] gcHoldingTheFirstDataWrite() {
        gate.which = MovingGcTest::startsWithAMovedBlock;
        boolean[] done = {false};
        h.gc().gc(r -> done[0] = true);
        h.loop.runUntil(() -> gate.held != null);
        return done;
    }

    private static byte[] concat(byte[]... parts) {
        ByteBuffer all = ByteBuffer.allocate(parts.length * GcHarness.BLOCK_BYTES);
        for (byte[] part : parts) {
            all.put(part);
        }
        return all.array();
    }
}
