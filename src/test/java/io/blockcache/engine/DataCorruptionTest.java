package io.blockcache.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import io.blockcache.format.BackingHeader;
import io.blockcache.index.ExtentLocation;
import io.blockcache.index.LookupVisitor;
import io.blockcache.volume.Volume;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Damaged data blocks in the cache device (docs/ARCHITECTURE.md §5 item 2: a CRC mismatch is an I/O error, never
 * silently wrong data): a dirty extent's only copy fails the read, naming where; a clean extent is read from the
 * backing device.
 */
class DataCorruptionTest {
    private static final int SECTOR_BYTES = 512;

    private final SimCacheSet sim = new SimCacheSet();
    private CacheSet set;
    private Volume volume;

    @BeforeEach
    void openFreshSet() {
        sim.format(1);
        set = sim.openOk();
        volume = set.volume(SimCacheSet.EXPORT);
    }

    /** The single cached piece over a range, as the index holds it. */
    private record Piece(long startSector, int lengthSectors, int bucket, int offsetInBucketSectors, boolean dirty) {
    }

    private Piece onlyPiece(long startSector, int lengthSectors) {
        List<Piece> pieces = new ArrayList<>();
        volume.index().lookup(startSector, lengthSectors, new LookupVisitor() {
            @Override
            public void hole(long start, int length) {
                throw new AssertionError("range [" + start + ", +" + length + ") is not cached");
            }

            @Override
            public void extent(long start, int length, long location, int crc32c, int crcOffset, int crcLength) {
                pieces.add(new Piece(start, length, ExtentLocation.bucket(location),
                        ExtentLocation.offsetInBucketSectors(location), ExtentLocation.dirty(location)));
            }
        });
        assertThat(pieces).hasSize(1);
        return pieces.get(0);
    }

    /** Flips one byte in sector {@code sectorInPiece} of the piece's data on the cache device. */
    private void damage(Piece piece, int sectorInPiece) {
        long bucketStart = set.superblock().bucketOffsetBytes(piece.bucket());
        sim.flipByte(sim.cache,
                bucketStart + (long) (piece.offsetInBucketSectors() + sectorInPiece) * SECTOR_BYTES + 7);
    }

    @Test
    void damagedDirtyDataFailsTheReadNamingBucketAndSectors() {
        // Proves a dirty extent whose data fails its CRC is an I/O error naming the bucket and the sectors, and
        // that other dirty data next to it still reads back.
        byte[] victim = SimCacheSet.pattern(1, 16 << 10);
        byte[] neighbour = SimCacheSet.pattern(2, 16 << 10);
        sim.writeOk(volume, 64 << 10, victim);
        sim.writeOk(volume, 128 << 10, neighbour);
        sim.flushOk(volume);
        Piece piece = onlyPiece(128, 32);
        assertThat(piece.dirty()).isTrue();
        damage(piece, 3);

        ByteBuffer buffer = ByteBuffer.allocate(victim.length);
        IoResult read = sim.io(cb -> volume.read(64 << 10, buffer, cb));
        assertThat(read.status()).isEqualTo(IoStatus.IO_ERROR);
        assertThat(read.message()).contains("sectors [128, 160)").contains("in bucket " + piece.bucket())
                .contains("CRC32C");
        assertThat(volume.stats().checksumErrors()).isEqualTo(1);
        assertThat(sim.readOk(volume, 128 << 10, neighbour.length)).isEqualTo(neighbour);
    }

    @Test
    void damagedCleanDataIsReadFromTheBackingDevice() {
        // Proves a clean extent (a read-miss fill) whose cached copy fails its CRC is served from the backing
        // device: the read succeeds with the right data and the checksum error is counted.
        byte[] onBacking = SimCacheSet.pattern(5, 16 << 10);
        long volumeOffset = 256 << 10;
        sim.rawWrite(sim.backing, BackingHeader.DEFAULT_DATA_OFFSET_BYTES + volumeOffset, onBacking);
        assertThat(sim.readOk(volume, volumeOffset, onBacking.length)).as("miss").isEqualTo(onBacking);
        // The fill completes after the read did; background timers (writeback, GC) keep the loop from idling.
        sim.loop.runFor(java.util.concurrent.TimeUnit.SECONDS.toNanos(1));
        Piece piece = onlyPiece(volumeOffset / SECTOR_BYTES, onBacking.length / SECTOR_BYTES);
        assertThat(piece.dirty()).as("a fill is clean").isFalse();
        long hitsBefore = volume.stats().readHitSectors();
        assertThat(sim.readOk(volume, volumeOffset, onBacking.length)).as("hit").isEqualTo(onBacking);
        assertThat(volume.stats().readHitSectors()).as("served from the cache").isGreaterThan(hitsBefore);

        damage(piece, 5);
        assertThat(sim.readOk(volume, volumeOffset, onBacking.length)).as("after damage").isEqualTo(onBacking);
        assertThat(volume.stats().checksumErrors()).isEqualTo(1);
    }
}
