package io.blockcache.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.device.FileSpace;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class FileSpaceStatsTest {
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void sparseBytesBeyondTheFreeSpaceReachStatsAndMetrics() throws Exception {
        // Proves a cache file with 112 MiB of holes on a file system with 64 MiB free shows 48 MiB beyond the free
        // space in /api/stats and as a gauge in /metrics, and that the measurement is taken per request.
        long mib = 1L << 20;
        long[] free = {64 * mib};
        try (RunningCacheSet cache = new RunningCacheSet()) {
            cache.admin.fileSpaces(() -> List.of(new FileSpace("cache", Path.of("/data/cache.img"), 128 * mib,
                    16 * mib, free[0])));
            assertThat(get(cache, "/api/stats")).contains("\"files\":[{\"file\":\"cache\",\"path\":\"/data/cache.img\","
                    + "\"sizeBytes\":134217728,\"allocatedBytes\":16777216,\"fileSystemFreeBytes\":67108864,"
                    + "\"sparseBeyondFreeBytes\":50331648}]");
            assertThat(get(cache, "/metrics")).contains("blockcache_file_sparse_beyond_free_bytes{file=\"cache\"}"
                    + " 5.0331648E7");
            free[0] = 200 * mib;
            assertThat(get(cache, "/api/stats")).contains("\"sparseBeyondFreeBytes\":0}");
        }
    }

    private String get(RunningCacheSet cache, String path) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://" + cache.adminHostPort() + path))
                .timeout(Duration.ofSeconds(10)).GET().build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        return response.body();
    }
}
