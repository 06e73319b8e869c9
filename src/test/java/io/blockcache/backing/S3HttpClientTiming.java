package io.blockcache.backing;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.bench.S3ProxyServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;

/**
 * Not a test but a timing (docs/BENCHMARKS.md "S3 HTTP client"), run only when asked:
 * {@code ./mvnw -B -q test -Dtest=S3HttpClientTiming -Dblockcache.s3Timing=true}. Two stores on one S3Proxy, the
 * SDK's Apache HttpClient 5 client as {@link S3Store} builds it and the url-connection client it replaced (same
 * timeouts), take turns (A, B, A, B, ...) at the same work: {@link #PUTS_PER_ROUND} PUTs of whole 4 MiB chunks
 * from {@link #THREADS} threads (the I/O threads of a device), then as many GETs of them. Prints each round's
 * MiB/s and the median and worst request latency per client; checks only that every GET returned what was PUT.
 */
@EnabledIfSystemProperty(named = "blockcache.s3Timing", matches = "true")
class S3HttpClientTiming {
    private static final int ROUNDS_PER_CLIENT = Integer.getInteger("blockcache.s3TimingRounds", 3);
    private static final int THREADS = 8;
    private static final int PUTS_PER_ROUND = 48;
    /** Keys overwritten round after round: S3Proxy's in-memory store stays at 16 x 4 MiB. */
    private static final int KEYS = 16;
    private static final int CHUNK_BYTES = S3Volume.CHUNK_BYTES_DEFAULT;

    @TempDir
    Path dir;

    @Test
    void apacheFiveAgainstUrlConnection() throws Exception {
        // Proves nothing about speed (it prints the numbers); it fails only if a GET returned other bytes.
        try (S3ProxyServer s3 = S3ProxyServer.start(dir)) {
            s3.createBucket("timing");
            S3Uri uri = new S3Uri("timing", "t");
            S3Options options = new S3Options(s3.endpoint(), false, "timing");
            StaticCredentialsProvider credentials = StaticCredentialsProvider.create(AwsBasicCredentials.create(
                    S3ProxyServer.IDENTITY, S3ProxyServer.CREDENTIAL));
            SdkHttpClient.Builder<?> urlConnection = UrlConnectionHttpClient.builder()
                    .connectionTimeout(S3Store.CONNECT_TIMEOUT).socketTimeout(S3Store.SOCKET_TIMEOUT);
            try (S3Store apache = S3Store.open(uri, options, credentials, S3Store.httpClient(S3Store.SOCKET_TIMEOUT));
                 S3Store url = S3Store.open(uri, options, credentials, urlConnection)) {
                byte[][] bodies = new byte[KEYS][CHUNK_BYTES];
                Random random = new Random(20261207L);
                for (byte[] body : bodies) {
                    random.nextBytes(body);
                }
                round(apache, bodies); // warm-up of both, not counted: JIT, connections, S3Proxy's first objects
                round(url, bodies);
                List<String> lines = new ArrayList<>();
                List<long[]> apacheLatencies = new ArrayList<>();
                List<long[]> urlLatencies = new ArrayList<>();
                for (int r = 0; r < ROUNDS_PER_CLIENT; r++) {
                    lines.add("apache5        round " + r + ": " + summary(round(apache, bodies), apacheLatencies));
                    lines.add("url-connection round " + r + ": " + summary(round(url, bodies), urlLatencies));
                }
                lines.forEach(System.out::println);
                System.out.println("apache5        all: " + percentiles(apacheLatencies));
                System.out.println("url-connection all: " + percentiles(urlLatencies));
            }
        }
    }

    /** One round: PUTs, then GETs; returns {put ns, get ns, then per-request ns: PUTs, then GETs}. */
    private static long[] round(S3Store store, byte[][] bodies) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(THREADS);
        try {
            long[] out = new long[2 + 2 * PUTS_PER_ROUND];
            long start = System.nanoTime();
            List<Future<Long>> puts = new ArrayList<>();
            for (int i = 0; i < PUTS_PER_ROUND; i++) {
                int key = i % KEYS;
                puts.add(threads.submit(() -> {
                    long t = System.nanoTime();
                    store.put("chunk-" + key, bodies[key], CHUNK_BYTES);
                    return System.nanoTime() - t;
                }));
            }
            for (int i = 0; i < PUTS_PER_ROUND; i++) {
                out[2 + i] = puts.get(i).get();
            }
            out[0] = System.nanoTime() - start;
            start = System.nanoTime();
            List<Future<Long>> gets = new ArrayList<>();
            for (int i = 0; i < PUTS_PER_ROUND; i++) {
                int key = i % KEYS;
                gets.add(threads.submit(() -> {
                    byte[] got = new byte[CHUNK_BYTES];
                    long t = System.nanoTime();
                    store.getRange("chunk-" + key, 0, CHUNK_BYTES, got, 0);
                    long ns = System.nanoTime() - t;
                    assertThat(Arrays.equals(got, bodies[key])).as("GET of chunk-" + key).isTrue();
                    return ns;
                }));
            }
            for (int i = 0; i < PUTS_PER_ROUND; i++) {
                out[2 + PUTS_PER_ROUND + i] = gets.get(i).get();
            }
            out[1] = System.nanoTime() - start;
            return out;
        } finally {
            threads.shutdown();
        }
    }

    private static String summary(long[] round, List<long[]> latencies) {
        latencies.add(round);
        double mib = (double) PUTS_PER_ROUND * CHUNK_BYTES / (1 << 20);
        return String.format(Locale.ROOT, "PUT %.0f MiB/s, GET %.0f MiB/s", mib / (round[0] / 1e9),
                mib / (round[1] / 1e9));
    }

    private static String percentiles(List<long[]> rounds) {
        long[] puts = rounds.stream().flatMapToLong(r -> Arrays.stream(r, 2, 2 + PUTS_PER_ROUND)).sorted().toArray();
        long[] gets = rounds.stream().flatMapToLong(r -> Arrays.stream(r, 2 + PUTS_PER_ROUND, r.length)).sorted()
                .toArray();
        double putSeconds = rounds.stream().mapToLong(r -> r[0]).sum() / 1e9;
        double getSeconds = rounds.stream().mapToLong(r -> r[1]).sum() / 1e9;
        double mib = (double) rounds.size() * PUTS_PER_ROUND * CHUNK_BYTES / (1 << 20);
        return String.format(Locale.ROOT, "PUT %.0f MiB/s, median %.0f ms, max %.0f ms; GET %.0f MiB/s, median %.0f"
                        + " ms, max %.0f ms", mib / putSeconds, puts[puts.length / 2] / 1e6,
                puts[puts.length - 1] / 1e6, mib / getSeconds, gets[gets.length / 2] / 1e6,
                gets[gets.length - 1] / 1e6);
    }
}
