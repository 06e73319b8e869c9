package io.blockcache.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.device.IoResult;
import io.blockcache.volume.Volume;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Recovery of a checkpoint of several chunks on a real loop, where {@link ChunkPrefetch} decodes the chunks on a
 * thread of its own while the loop applies the one before (on a simulated loop, as in the fuzz, the decode is
 * inline).
 */
class CheckpointOnRealLoopTest {
    private static final int SECTOR_BYTES = 512;
    /** Every other sector of the 16 MiB volume, each its own extent: well over one 256 KiB checkpoint chunk. */
    private static final int EXTENTS = (int) (FileCacheSet.VOLUME_BYTES / SECTOR_BYTES / 2);

    @TempDir
    Path dir;

    @Test
    void aCheckpointOfManyChunksIsReplayedOffTheLoopIntoTheSameData() throws Exception {
        // Proves the prefetched replay applies every chunk, in order, once: each of 16,384 single-sector extents
        // (about 400 KiB of checkpoint, two chunks or more) reads back its own bytes after the reopen, and the
        // sectors between them read as the zeroes they were; the open fails if a chunk is lost or repeated (the
        // cursor checks the digest and the extent count against the checkpoint's record).
        Path cachePath = dir.resolve("cache");
        Path backingPath = dir.resolve("backing");
        try (FileCacheSet files = FileCacheSet.create(cachePath, backingPath)) {
            files.format(7).orThrow();
            CacheSet set = files.openSet().orThrow();
            Volume volume = set.volume(FileCacheSet.EXPORT);
            IoResult written = OnLoop.io(files.loop, done -> writeAll(volume, done));
            assertThat(written.ok()).as(written.toString()).isTrue();
            IoResult flushed = OnLoop.io(files.loop, volume::flush);
            assertThat(flushed.ok()).isTrue();
            IoResult checkpointed = OnLoop.io(files.loop, set::checkpoint);
            assertThat(checkpointed.ok()).as(checkpointed.toString()).isTrue();
        } // closed without a shutdown: the reopen replays the checkpoint, then the journal after it
        try (FileCacheSet files = FileCacheSet.openFiles(cachePath, backingPath)) {
            CacheSet set = files.openSet().orThrow();
            Volume volume = set.volume(FileCacheSet.EXPORT);
            ByteBuffer all = ByteBuffer.allocateDirect((int) FileCacheSet.VOLUME_BYTES);
            IoResult read = OnLoop.io(files.loop, done -> volume.read(0, all, done));
            assertThat(read.ok()).as(read.toString()).isTrue();
            for (int i = 0; i < EXTENTS; i++) {
                int at = 2 * i * SECTOR_BYTES;
                assertThat(all.getInt(at)).as("extent " + i).isEqualTo(i + 1);
                assertThat(all.getInt(at + SECTOR_BYTES)).as("the sector after extent " + i).isZero();
            }
        }
    }

    /** Writes sector {@code 2i} with {@code i + 1} in its first bytes, for every extent, all at once. */
    private static void writeAll(Volume volume, io.blockcache.device.IoCallback done) {
        int[] left = {EXTENTS};
        boolean[] failed = {false};
        for (int i = 0; i < EXTENTS; i++) {
            ByteBuffer sector = ByteBuffer.allocateDirect(SECTOR_BYTES);
            sector.putInt(0, i + 1);
            volume.write(2L * i * SECTOR_BYTES, sector, false, result -> {
                if (!result.ok() && !failed[0]) {
                    failed[0] = true;
                    done.complete(result);
                }
                if (--left[0] == 0 && !failed[0]) {
                    done.complete(IoResult.OK);
                }
            });
        }
    }
}
