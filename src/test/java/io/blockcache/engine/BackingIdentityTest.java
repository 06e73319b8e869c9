package io.blockcache.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.ForwardingDevice;
import io.blockcache.device.MemoryDevice;
import io.blockcache.index.ExtentIndex;
import io.blockcache.loop.Prng;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Open refuses a backing device that was resized or belongs to another cache set (FORMAT.md §4). */
class BackingIdentityTest {
    @TempDir
    Path dir;

    @Test
    void shrunkBackingFileIsRefusedWithFoundAndExpectedSizesAndAGrownOneKeepsItsVolume() throws Exception {
        // Proves a backing file shrunk after format is refused with its size and the expected size, that the size
        // alone was the reason (restored, the same files open), and that a grown file opens with the volume's
        // recorded size (a grow not committed by `volume resize`: docs/FORMAT.md §3).
        Path cacheFile = dir.resolve("cache.img");
        Path backingFile = dir.resolve("backing.img");
        try (FileCacheSet files = FileCacheSet.create(cacheFile, backingFile)) {
            assertThat(files.format(1).error()).isNull();
        }
        long shrunkBytes = FileCacheSet.BACKING_BYTES - (1 << 20);
        setLength(backingFile, shrunkBytes);
        try (FileCacheSet files = FileCacheSet.openFiles(cacheFile, backingFile)) {
            Outcome<CacheSet> opened = files.openSet();
            assertThat(opened.isOk()).as("open must refuse").isFalse();
            assertThat(opened.error()).contains("was resized")
                    .contains("found device size " + shrunkBytes + " bytes")
                    .contains("expected " + FileCacheSet.BACKING_BYTES + " bytes");
        }
        setLength(backingFile, FileCacheSet.BACKING_BYTES + (1 << 20));
        try (FileCacheSet files = FileCacheSet.openFiles(cacheFile, backingFile)) {
            Outcome<CacheSet> opened = files.openSet();
            assertThat(opened.error()).as("a grown file opens").isNull();
            assertThat(opened.value().volumes().get(0).sizeBytes())
                    .isEqualTo(opened.value().superblock().backings().get(0).volumeSizeBytes());
        }
    }

    private static void setLength(Path file, long bytes) throws Exception {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(bytes);
        }
    }

    @Test
    void backingDeviceOfAnotherCacheSetIsRefusedWithBothIdentities() {
        // Proves a backing device formatted into another cache set (under the same export name) is refused,
        // naming the cache set and backing UUIDs it found and those this cache set expects.
        SimCacheSet mine = new SimCacheSet();
        mine.format(1);
        CacheSet set = mine.openOk();
        UUID myCacheSet = set.superblock().cacheSetUuid();
        UUID myBacking = set.superblock().backings().get(0).backingUuid();
        mine.crash();

        MemoryDevice otherCache = new MemoryDevice(mine.loop, 8L << 20, 512);
        MemoryDevice otherBacking = new MemoryDevice(mine.loop, 17L << 20, 512);
        List<BackingSpec> other = List.of(new BackingSpec(SimCacheSet.EXPORT, otherBacking));
        Outcome<Void> formatted = mine.await(done -> CacheSet.format(mine.loop, otherCache, other, SimCacheSet.OPTIONS,
                new Prng(2), fraction -> { }, done));
        assertThat(formatted.error()).isNull();
        CacheSet otherSet = mine.open(otherCache, other).value();
        UUID otherCacheSet = otherSet.superblock().cacheSetUuid();
        UUID otherBackingUuid = otherSet.superblock().backings().get(0).backingUuid();
        assertThat(otherCacheSet).isNotEqualTo(myCacheSet);
        mine.crash();

        Outcome<CacheSet> opened = mine.open(mine.cache, other);
        assertThat(opened.isOk()).as("open must refuse").isFalse();
        assertThat(opened.error())
                .contains("belongs to another cache set: found cache set " + otherCacheSet + ", expected " + myCacheSet)
                .contains("is the wrong device: found backing uuid " + otherBackingUuid + ", expected " + myBacking);
        assertThat(mine.open().error()).as("its own backing device still opens").isNull();
    }

    @Test
    void aBackingDeviceLargerThanTheIndexCanAddressIsRefusedAtFormat() {
        // Proves a volume beyond 2^47 sectors (the index packs start and length in one long) is refused at
        // format with a one-line reason, before anything is written.
        SimCacheSet mine = new SimCacheSet();
        long tooLargeBytes = (ExtentIndex.SECTOR_LIMIT + 1) * 512 + (2L << 20);
        BlockDevice huge = new ForwardingDevice(mine.backing) {
            @Override
            public long sizeBytes() {
                return tooLargeBytes;
            }
        };
        Outcome<Void> formatted = mine.await(done -> CacheSet.format(mine.loop, mine.cache,
                List.of(new BackingSpec(SimCacheSet.EXPORT, huge)), SimCacheSet.OPTIONS, new Prng(3), fraction -> { },
                done));
        assertThat(formatted.error()).contains("is too large: a volume is at most 2^47 sectors");
        assertThat(mine.cache.allocatedPages()).isZero();
    }
}
