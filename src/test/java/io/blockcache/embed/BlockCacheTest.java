package io.blockcache.embed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The embedding facade: open from a config, async requests from any thread, clean close, reopen. */
class BlockCacheTest {
    /** Blocks each writer thread writes, a bounded load (4 threads × 64 × 4 KiB = 1 MiB). */
    private static final int BLOCKS_PER_THREAD = 64;
    private static final int THREADS = 4;
    private static final long WAIT_SECONDS = 60;

    @TempDir
    Path dir;

    private BlockCacheConfig.Builder config() {
        // Writeback paused: the data written stays dirty in the cache, so a reopen must recover it from there.
        return BlockCacheConfig.builder(dir.resolve("cache.img")).cacheSizeBytes(64L << 20)
                .backing("disk", dir.resolve("disk.img")).backingSizeBytes(64L << 20)
                .knob("writeback.disk.running", "false");
    }

    private static byte[] block(int value) {
        byte[] bytes = new byte[4096];
        Arrays.fill(bytes, (byte) value);
        return bytes;
    }

    @Test
    void writesFromManyThreadsReadBackAndSurviveAReopen() throws Exception {
        // Proves requests from several threads at once land, futures complete off the loop thread, a flush makes
        // them durable and a clean close plus reopen (recovery) returns them.
        List<String> completionThreads = new ArrayList<>();
        try (BlockCache cache = BlockCache.open(config().build())) {
            assertThat(cache.volumeNames()).containsExactly("disk");
            CachedVolume disk = cache.volume("disk");
            assertThat(disk.sizeBytes()).isEqualTo(64L << 20); // exactly the backing size asked
            ExecutorService writers = Executors.newFixedThreadPool(THREADS);
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                done.add(writers.submit(() -> {
                    List<CompletableFuture<Void>> writes = new ArrayList<>();
                    for (int i = 0; i < BLOCKS_PER_THREAD; i++) {
                        int index = thread * BLOCKS_PER_THREAD + i;
                        writes.add(disk.write(index * 4096L, ByteBuffer.wrap(block(index))));
                    }
                    CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)).join();
                    return null;
                }));
            }
            for (Future<?> future : done) {
                future.get(WAIT_SECONDS, TimeUnit.SECONDS);
            }
            writers.shutdown();
            disk.flush().thenRun(() -> {
                synchronized (completionThreads) {
                    completionThreads.add(Thread.currentThread().getName());
                }
            }).get(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(disk.read(7 * 4096L, 4096).get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo(block(7));
            assertThat(cache.knob("writeback.disk.running")).isEqualTo("false");
        }
        assertThat(completionThreads).hasSize(1).noneMatch(name -> name.contains("loop"));

        try (BlockCache reopened = BlockCache.open(config().build())) {
            CachedVolume disk = reopened.volume("disk");
            for (int index = 0; index < THREADS * BLOCKS_PER_THREAD; index++) {
                ByteBuffer read = ByteBuffer.allocate(4096);
                disk.read(index * 4096L, read).get(WAIT_SECONDS, TimeUnit.SECONDS);
                assertThat(read.array()).as("block %d", index).isEqualTo(block(index));
                assertThat(read.position()).as("the caller's buffer position is left alone").isZero();
            }
            disk.trim(0, 4096).get(WAIT_SECONDS, TimeUnit.SECONDS);
            reopened.setKnob("volume.disk.mode", "writethrough");
            assertThat(reopened.knob("volume.disk.mode")).isEqualTo("writethrough");
        }
    }

    @Test
    void badRequestsFailWithOneLineAndLoseNothing() throws Exception {
        // Proves misaligned and out-of-range requests, unknown names and bad knob values fail with a message that
        // says what, and that the cache keeps serving afterwards; a closed cache refuses requests.
        BlockCache cache = BlockCache.open(config().build());
        CachedVolume disk = cache.volume("disk");
        disk.write(0, ByteBuffer.wrap(block(1))).get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThatThrownBy(() -> disk.write(100, ByteBuffer.wrap(block(2))).join())
                .isInstanceOf(CompletionException.class).cause().isInstanceOf(BlockCacheException.class)
                .hasMessageContaining("write of disk [100, +4096)").hasMessageNotContaining("\n");
        assertThatThrownBy(() -> disk.read(disk.sizeBytes(), 4096).join()).cause()
                .isInstanceOf(BlockCacheException.class).hasMessageContaining("read of disk");
        assertThatThrownBy(() -> cache.volume("disc")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("no volume named \"disc\"; volumes: [disk]");
        assertThatThrownBy(() -> cache.setKnob("volume.disk.mode", "fastest"))
                .isInstanceOf(BlockCacheException.class)
                .hasMessageContaining("volume.disk.mode: \"fastest\" is not allowed; allowed: writeback");
        assertThatThrownBy(() -> cache.knob("no.such.knob")).isInstanceOf(BlockCacheException.class);
        assertThat(disk.read(0, 4096).get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo(block(1));
        cache.close();
        cache.close(); // idempotent
        assertThatThrownBy(() -> disk.flush().join()).cause().isInstanceOf(BlockCacheException.class)
                .hasMessageContaining("closed");
    }

    @Test
    void badConfigurationsAndFilesAreRefusedAtOpen() throws Exception {
        // Proves the config is validated once with a clear message, and a missing backing file next to an
        // existing cache is refused rather than recreated empty.
        assertThatThrownBy(() -> BlockCacheConfig.builder(dir.resolve("c.img")).build())
                .hasMessageContaining("at least one backing file");
        assertThatThrownBy(() -> config().mode("fast").build()).hasMessageContaining("mode must be one of");
        assertThatThrownBy(() -> config().backing("disk", dir.resolve("other.img")))
                .hasMessageContaining("given twice");
        assertThatThrownBy(() -> BlockCache.open(config().knob("volume.disk.moed", "none").build()))
                .isInstanceOf(BlockCacheException.class).hasMessageContaining("no knob named \"volume.disk.moed\"");
        BlockCache.open(config().build()).close();
        Files.delete(dir.resolve("disk.img"));
        assertThatThrownBy(() -> BlockCache.open(config().build())).isInstanceOf(BlockCacheException.class)
                .hasMessageContaining("is missing");
        assertThat(dir.resolve("disk.img")).doesNotExist();
    }
}
