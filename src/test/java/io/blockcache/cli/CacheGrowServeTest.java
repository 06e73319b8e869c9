package io.blockcache.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.device.IoResult;
import io.blockcache.loop.LoopCalls;
import io.blockcache.volume.Volume;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code serve --cache-size} on an existing cache (docs/OPERATIONS.md "Grow the cache device"). */
class CacheGrowServeTest {
    @TempDir
    Path dir;
    private final StringWriter errText = new StringWriter();
    private final PrintWriter err = new PrintWriter(errText, true);

    @Test
    void aLargerCacheSizeGrowsTheCacheKeepingItsDataAndASmallerOrDefaultedOneChangesNothing() throws Exception {
        // Proves a --cache-size larger than the existing cache grows file and geometry at start with the dirty data
        // kept, that a smaller one is said not to shrink it, and that a start without the flag (the 1G default)
        // leaves the size alone.
        Path data = dir.resolve("data");
        Path cache = data.resolve("cache.img");
        Path config = dir.resolve("paused.properties");
        Files.writeString(config, "knob.writeback.default.running=false\n"); // keep the data dirty
        ServeRuntime first = ServeRuntime.start(settings(data, config, "64M"), err);
        int bucketsBefore = ServeFiles.superblock(cache).bucketCount();
        byte[] written = new byte[8192];
        Arrays.fill(written, (byte) 0x3c);
        Volume volume = first.cacheSet().volume("default");
        assertThat(CacheGrowServeTest.<IoResult>onLoop(first, done ->
                volume.write(8192, ByteBuffer.wrap(written), false, done::accept))).isEqualTo(IoResult.OK);
        assertThat(first.stop()).isTrue();

        ServeRuntime grown = ServeRuntime.start(settings(data, config, "128M"), err);
        assertThat(Files.size(cache)).isEqualTo(128L << 20);
        assertThat(grown.cacheSet().superblock().bucketCount()).isEqualTo(bucketsBefore + 64); // 1 MiB buckets
        assertThat(errText.toString()).contains("grown by 67108864 bytes: " + bucketsBefore + " -> "
                + (bucketsBefore + 64) + " buckets");
        ByteBuffer read = ByteBuffer.allocate(written.length);
        Volume reopened = grown.cacheSet().volume("default");
        assertThat(CacheGrowServeTest.<IoResult>onLoop(grown, done -> reopened.read(8192, read, done::accept)))
                .isEqualTo(IoResult.OK);
        assertThat(read.array()).isEqualTo(written);
        assertThat(reopened.index().extents().dirtySectors()).isEqualTo(written.length / 512);
        assertThat(grown.stop()).isTrue();

        ServeRuntime smaller = ServeRuntime.start(settings(data, config, "64M"), err);
        assertThat(smaller.stop()).isTrue();
        assertThat(errText.toString()).contains("cache-size 67108864 is smaller than the cache in " + cache
                + " (134217728 bytes); shrinking a cache is not supported, so it keeps its size");
        ServeRuntime defaulted = ServeRuntime.start(settings(data, config, null), err);
        assertThat(defaulted.cacheSet().superblock().bucketCount()).isEqualTo(bucketsBefore + 64);
        assertThat(defaulted.stop()).isTrue();
        assertThat(Files.size(cache)).as("the 1G default grows nothing").isEqualTo(128L << 20);
    }

    @Test
    void aCacheSizeFromTheConfigFileGrowsTheCacheToo() throws Exception {
        // Proves key cache-size in the config file counts as given (the reload message promises the next start
        // grows the cache).
        Path data = dir.resolve("data");
        Path config = dir.resolve("serve.properties");
        Files.writeString(config, "cache-size=64M\n");
        assertThat(ServeRuntime.start(settings(data, config, null), err).stop()).isTrue();
        Files.writeString(config, "cache-size=96M\n");
        ServeRuntime grown = ServeRuntime.start(settings(data, config, null), err);
        assertThat(grown.stop()).isTrue();
        assertThat(Files.size(data.resolve("cache.img"))).isEqualTo(96L << 20);
        assertThat(errText.toString()).contains("grown by 33554432 bytes");
    }

    private ServeSettings settings(Path dataDir, Path config, String cacheSize) {
        List<String> args = new ArrayList<>(List.of("--data-dir", dataDir.toString(), "--backing-size", "256M",
                "--nbd-listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0", "--config", config.toString()));
        if (cacheSize != null) {
            args.addAll(List.of("--cache-size", cacheSize));
        }
        return ServeSettings.resolve(args.toArray(String[]::new));
    }

    private static <T> T onLoop(ServeRuntime runtime, java.util.function.Consumer<java.util.function.Consumer<T>>
            operation) throws Exception {
        return LoopCalls.await(runtime.loop(), operation, Duration.ofSeconds(10));
    }
}
