package io.blockcache.volume;

import static io.blockcache.volume.VolumeFixture.pattern;
import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class VolumeTest {
    private static final long VOLUME_BYTES = 64L << 20;

    @Test
    void writebackWritesAreServedFromTheCacheAndNotWrittenToBacking() {
        // Proves the write-back path: data lands in the cache as dirty extents, reads hit, backing untouched.
        VolumeFixture f = new VolumeFixture(16, VOLUME_BYTES, CacheMode.WRITEBACK);
        byte[] data = pattern(1, 96 << 10);
        assertThat(f.write(8192, data, false)).isEqualTo(IoResult.OK);
        assertThat(f.read(8192, data.length)).isEqualTo(data);
        assertThat(f.volume.stats().readHitSectors()).isEqualTo(data.length / 512);
        assertThat(f.backing(8192, data.length)).isEqualTo(new byte[data.length]);
        assertThat(f.extents.dirtySectors()).isEqualTo(data.length / 512);
        assertThat(f.journal.records).allMatch(r -> r.startsWith("insert") && r.endsWith("dirty")
                || r.startsWith("block crcs")); // the extents' per-4 KiB CRCs (docs/FORMAT.md §9)
        assertThat(f.journal.records).filteredOn(r -> r.startsWith("block crcs")).hasSize(3);
    }

    @Test
    void partialHitsAreStitchedFromCacheAndBacking() {
        // Proves a read spanning cached and uncached sectors returns each from the right place.
        VolumeFixture f = new VolumeFixture(16, VOLUME_BYTES, CacheMode.WRITEBACK);
        byte[] old = pattern(2, 64 << 10);
        f.putBacking(0, old);
        byte[] fresh = pattern(3, 8 << 10);
        f.write(16 << 10, fresh, false);
        byte[] expected = old.clone();
        System.arraycopy(fresh, 0, expected, 16 << 10, fresh.length);
        assertThat(f.read(0, old.length)).isEqualTo(expected);
    }

    @Test
    void overwritingPartOfAnExtentLeavesVerifiablePieces() {
        // Proves cut pieces still verify against their original CRC span and read back correctly.
        VolumeFixture f = new VolumeFixture(16, VOLUME_BYTES, CacheMode.WRITEBACK);
        byte[] first = pattern(4, 32 << 10);
        f.write(0, first, false);
        byte[] middle = pattern(5, 4 << 10);
        f.write(8 << 10, middle, false);
        byte[] expected = first.clone();
        System.arraycopy(middle, 0, expected, 8 << 10, middle.length);
        assertThat(f.read(0, expected.length)).isEqualTo(expected);
        assertThat(f.read(20 << 10, 2048)).isEqualTo(java.util.Arrays.copyOfRange(expected, 20 << 10, 22 << 10));
        assertThat(f.volume.stats().checksumErrors()).isZero();
    }

    @Test
    void readMissesFillTheCacheAndTheNextReadHits() {
        // Proves misses are served from backing and copied into the cache as clean extents, journaled as clean (so a
        // backing flush can cover them, docs/FORMAT.md §7 rule 10).
        VolumeFixture f = new VolumeFixture(16, VOLUME_BYTES, CacheMode.WRITEBACK);
        byte[] data = pattern(6, 16 << 10);
        f.putBacking(1 << 20, data);
        assertThat(f.read(1 << 20, data.length)).isEqualTo(data);
        assertThat(f.volume.stats().readMissSectors()).isEqualTo(32);
        assertThat(f.volume.stats().fillSectors()).isEqualTo(32);
        assertThat(f.read(1 << 20, data.length)).isEqualTo(data);
        assertThat(f.volume.stats().readHitSectors()).isEqualTo(32);
        assertThat(f.extents.dirtySectors()).isZero();
        assertThat(f.journal.records).containsExactly("insert 2048+32 clean");
    }

    @Test
    void aWriteThatRacesAFillWinsAndTheFillIsDropped() {
        // Proves the miss-collision rule: a fill never overwrites a newer write that raced it.
        VolumeFixture f = new VolumeFixture(16, VOLUME_BYTES, CacheMode.WRITEBACK);
        f.putBacking(0, pattern(7, 8192));
        byte[] fresh = pattern(8, 8192);
        IoResult[] results = new IoResult[2];
        f.volume.read(0, ByteBuffer.allocate(8192), r -> results[0] = r);
        f.volume.write(0, ByteBuffer.wrap(fresh), false, r -> results[1] = r);
        f.loop.runUntilIdle();
        assertThat(results).containsOnly(IoResult.OK);
        assertThat(f.volume.stats().fillsRaced()).isEqualTo(1);
        assertThat(f.read(0, 8192)).isEqualTo(fresh);
    }

    @Test
    void writearoundGoesToBackingAndInvalidatesCleanCopies() {
        // Proves a bypassing write removes the overlapping clean extents and lands on the backing device.
        VolumeFixture f = new VolumeFixture(16, VOLUME_BYTES, CacheMode.WRITEAROUND);
        f.putBacking(0, pattern(9, 16384));
        f.read(0, 16384); // fills a clean copy
        assertThat(f.extents.cachedSectors()).isEqualTo(32);
        byte[] around = pattern(10, 4096);
        f.write(4096, around, false);
        assertThat(f.backing(4096, 4096)).isEqualTo(around);
        assertThat(f.read(4096, 4096)).isEqualTo(around);
        assertThat(f.journal.records).contains("remove 8+8");
        assertThat(f.extents.dirtySectors()).isZero();
    }

    @Test
    void aWriteThatWouldGoAroundButOverlapsDirtyDataIsCachedAsDirty() {
        // Proves the forced-writeback rule: going around would drop a dirty copy before the new data is durable.
        VolumeFixture f = new VolumeFixture(16, VOLUME_BYTES, CacheMode.WRITEBACK);
        f.write(0, pattern(9, 16384), false);
        f.volume.setMode(CacheMode.WRITEAROUND);
        byte[] fresh = pattern(10, 4096);
        f.write(4096, fresh, false);
        assertThat(f.backing(4096, 4096)).isEqualTo(new byte[4096]);
        assertThat(f.read(4096, 4096)).isEqualTo(fresh);
        assertThat(f.extents.dirtySectors()).isEqualTo(32);
        assertThat(f.journal.records).noneMatch(r -> r.startsWith("remove"));
    }

    @Test
    void goingAroundDirtyDataFlushesTheBackingDeviceBeforeDroppingTheDirtyCopy() {
        // Proves the ordering of write-zeroes (and full-cache writes) over dirty data: data, backing flush, drop.
        VolumeFixture f = new VolumeFixture(16, VOLUME_BYTES, CacheMode.WRITEBACK);
        f.write(0, pattern(9, 16384), false);
        long[] flushesAtRemove = {-1};
        f.journal.onRemove = () -> flushesAtRemove[0] = f.backingDevice.counters().completed(
                io.blockcache.device.DeviceOp.FLUSH);
        IoResult[] out = new IoResult[1];
        f.volume.writeZeroes(0, 8192, false, r -> out[0] = r);
        f.loop.runUntilIdle();
        assertThat(out[0]).isEqualTo(IoResult.OK);
        assertThat(flushesAtRemove[0]).isEqualTo(1);
        assertThat(f.read(0, 8192)).isEqualTo(new byte[8192]);
        assertThat(f.extents.dirtySectors()).isEqualTo(16);
    }

    @Test
    void writeZeroesUsesTheBackingDevicesOwnZeroingWhenItHasOne() {
        // Proves the mapping of write-zeroes: a backing device that zeroes ranges itself (an NBD export offering
        // WRITE_ZEROES) gets one payload-free request for 3 MiB instead of three 1 MiB writes of a zero buffer.
        long[] zeroings = {0};
        long[] writes = {0};
        VolumeFixture f = new VolumeFixture(16, VOLUME_BYTES, CacheMode.WRITEBACK, (loop, device) -> device,
                device -> new io.blockcache.device.ForwardingDevice(device) {
                    @Override
                    public boolean writesZeroes() {
                        return true;
                    }

                    @Override
                    public void writeZeroes(long offsetBytes, long lengthBytes, boolean fua,
                                            io.blockcache.device.IoCallback callback) {
                        zeroings[0]++;
                        inner().write(offsetBytes, java.nio.ByteBuffer.allocate((int) lengthBytes), fua, callback);
                    }

                    @Override
                    public void write(long offsetBytes, java.nio.ByteBuffer src, boolean fua,
                                      io.blockcache.device.IoCallback callback) {
                        writes[0]++;
                        inner().write(offsetBytes, src, fua, callback);
                    }
                });
        f.putBacking(1 << 20, pattern(20, 4096));
        IoResult[] out = new IoResult[1];
        f.volume.writeZeroes(0, 3 << 20, false, r -> out[0] = r);
        f.loop.runUntilIdle();
        assertThat(out[0]).isEqualTo(IoResult.OK);
        assertThat(zeroings[0]).isEqualTo(1);
        assertThat(writes[0]).isZero();
        assertThat(f.read(1 << 20, 4096)).isEqualTo(new byte[4096]);
    }

    @Test
    void writethroughWritesBothAndKeepsACleanCopy() {
        // Proves write-through: backing gets the data, the cache a clean copy that later reads hit.
        VolumeFixture f = new VolumeFixture(16, VOLUME_BYTES, CacheMode.WRITETHROUGH);
        byte[] data = pattern(11, 8192);
        f.write(0, data, false);
        assertThat(f.backing(0, 8192)).isEqualTo(data);
        assertThat(f.extents.cachedSectors()).isEqualTo(16);
        assertThat(f.extents.dirtySectors()).isZero();
        assertThat(f.read(0, 8192)).isEqualTo(data);
        assertThat(f.volume.stats().readHitSectors()).isEqualTo(16);
    }

    @Test
    void aFullCacheSendsWritesAroundInsteadOfFailing() {
        // Proves that with no free bucket, writes still succeed by going to the backing device.
        VolumeFixture f = new VolumeFixture(2, VOLUME_BYTES, CacheMode.WRITEBACK);
        byte[] big = pattern(12, 2 * VolumeFixture.BUCKET_BYTES);
        assertThat(f.write(0, big, false)).isEqualTo(IoResult.OK);
        byte[] more = pattern(13, 8192);
        assertThat(f.write(1 << 20, more, false)).isEqualTo(IoResult.OK);
        assertThat(f.backing(1 << 20, 8192)).isEqualTo(more);
        assertThat(f.read(1 << 20, 8192)).isEqualTo(more);
        assertThat(f.read(0, big.length)).isEqualTo(big);
        // Over dirty data with no room: data to backing, backing flush, then the dirty copy goes.
        byte[] over = pattern(14, 4096);
        long flushesBefore = f.backingDevice.counters().completed(io.blockcache.device.DeviceOp.FLUSH);
        assertThat(f.write(0, over, false)).isEqualTo(IoResult.OK);
        assertThat(f.backingDevice.counters().completed(io.blockcache.device.DeviceOp.FLUSH))
                .isEqualTo(flushesBefore + 1);
        assertThat(f.backing(0, 4096)).isEqualTo(over);
        assertThat(f.read(0, 4096)).isEqualTo(over);
        assertThat(f.read(4096, 4096)).isEqualTo(java.util.Arrays.copyOfRange(big, 4096, 8192));
    }

    @Test
    void trimAndWriteZeroesInvalidateAndZeroWhatTheyCover() {
        // Proves TRIM removes cached extents and WRITE_ZEROES makes the range read as zeroes.
        VolumeFixture f = new VolumeFixture(16, VOLUME_BYTES, CacheMode.WRITEBACK);
        f.write(0, pattern(14, 32768), false);
        IoResult[] out = new IoResult[2];
        f.volume.discard(0, 8192, r -> out[0] = r);
        f.volume.writeZeroes(16384, 3 << 20, true, r -> out[1] = r);
        f.loop.runUntilIdle();
        assertThat(out).containsOnly(IoResult.OK);
        assertThat(f.extents.cachedSectors()).isEqualTo(16);
        assertThat(f.read(16384, 16384)).isEqualTo(new byte[16384]);
        assertThat(f.journal.commits).isEqualTo(1);
    }

    @Test
    void corruptCachedDataIsNeverReturned() {
        // Proves CRC verification: dirty data that fails its check is an error, clean data falls back to backing.
        VolumeFixture f = new VolumeFixture(16, VOLUME_BYTES, CacheMode.WRITEBACK);
        f.write(0, pattern(15, 4096), false);
        f.corruptCache(f.layout.byteOffset(f.space.dirtyWritePoint().openBucket(), 2));
        IoResult dirtyRead = f.readResult(0, 4096);
        assertThat(dirtyRead.status()).isEqualTo(IoStatus.IO_ERROR);
        assertThat(dirtyRead.message()).contains("CRC32C");

        byte[] backing = pattern(16, 4096);
        f.putBacking(1 << 20, backing);
        assertThat(f.read(1 << 20, 4096)).isEqualTo(backing); // miss, fills a clean copy
        f.corruptCache(f.layout.byteOffset(f.space.cleanWritePoint().openBucket(), 1));
        assertThat(f.read(1 << 20, 4096)).isEqualTo(backing);
        assertThat(f.volume.stats().checksumErrors()).isEqualTo(2);
    }

    @Test
    void fuaCommitsTheJournalAndAFailedFlushPoisonsLaterFlushes() {
        // Proves FUA waits for the journal, and after a failed commit no flush or FUA ever succeeds again.
        VolumeFixture f = new VolumeFixture(16, VOLUME_BYTES, CacheMode.WRITEBACK);
        f.write(0, pattern(17, 4096), true);
        assertThat(f.journal.commits).isEqualTo(1);
        f.journal.failCommits = true;
        assertThat(f.flush().status()).isEqualTo(IoStatus.IO_ERROR);
        f.journal.failCommits = false;
        assertThat(f.flush().status()).isEqualTo(IoStatus.IO_ERROR);
        assertThat(f.write(4096, pattern(18, 4096), true).status()).isEqualTo(IoStatus.IO_ERROR);
        assertThat(f.write(8192, pattern(19, 4096), false)).isEqualTo(IoResult.OK);
    }

    @Test
    void badRequestsGetClearErrors() {
        // Proves range and alignment checks answer with errors as values, never exceptions.
        VolumeFixture f = new VolumeFixture(4, VOLUME_BYTES, CacheMode.WRITEBACK);
        assertThat(f.write(VOLUME_BYTES - 512, new byte[1024], false).status()).isEqualTo(IoStatus.OUT_OF_RANGE);
        assertThat(f.write(-512, new byte[512], false).status()).isEqualTo(IoStatus.OUT_OF_RANGE);
        assertThat(f.write(100, new byte[512], false).status()).isEqualTo(IoStatus.MISALIGNED);
        assertThat(f.readResult(Long.MAX_VALUE - 100, 512).status()).isEqualTo(IoStatus.OUT_OF_RANGE);
        IoResult[] out = new IoResult[1];
        f.volume.discard(0, VOLUME_BYTES + 512, r -> out[0] = r);
        f.loop.runUntilIdle();
        assertThat(out[0].status()).isEqualTo(IoStatus.OUT_OF_RANGE);
    }

    @Test
    void aFlushWhileAnEarlierBackingFlushIsInFlightStillWaitsForTheBackingDevice() {
        // Proves crash seed 45's fix: a second FLUSH must not complete before the backing flush that covers a write
        // acknowledged before it was submitted (the first FLUSH had already taken that write's count).
        VolumeFixture f = new VolumeFixture(16, VOLUME_BYTES, CacheMode.WRITEAROUND);
        f.write(0, pattern(20, 4096), false);
        f.volume.flush(r -> { });
        f.volume.flush(r -> { });
        f.loop.runUntilIdle();
        assertThat(f.backingDevice.counters().submitted(io.blockcache.device.DeviceOp.FLUSH)).isEqualTo(2);
    }
}
