package io.blockcache.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * S3Proxy ({@code org.gaul:s3proxy}, the jar with dependencies that Maven fetches as a test dependency) as a separate
 * process on 127.0.0.1 and a port that was free a moment ago, with an in-memory ("transient") blob store: a real S3
 * server for the {@code s3://} tests and the S3 row of {@code bench backing}. Ready once the port accepts; killed on
 * close. Benchmark and test harness, not engine code: it polls and uses the wall clock.
 */
public final class S3ProxyServer implements AutoCloseable {
    /** The access key S3Proxy accepts (any would do; the tests pass it to blockcache through the AWS chain). */
    public static final String IDENTITY = "blockcache-test";
    public static final String CREDENTIAL = "blockcache-test-secret";
    /** How long S3Proxy may take to listen (it takes about 2.5 s on an idle machine). */
    private static final long READY_WAIT_NS_MAX = TimeUnit.SECONDS.toNanos(60);
    private static final long POLL_PERIOD_MS = 50;

    private final Process process;
    private final int port;
    private final Path log;

    private S3ProxyServer(Process process, int port, Path log) {
        this.process = process;
        this.port = port;
        this.log = log;
    }

    /** Starts S3Proxy with its files (config, log) under {@code dir}; waits until it listens. */
    public static S3ProxyServer start(Path dir) throws IOException, InterruptedException {
        Path jar = jar();
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        Path config = dir.resolve("s3proxy-" + port + ".conf");
        Files.writeString(config, "s3proxy.endpoint=http://127.0.0.1:" + port + "\n"
                + "s3proxy.authorization=aws-v2-or-v4\n"
                + "s3proxy.identity=" + IDENTITY + "\n"
                + "s3proxy.credential=" + CREDENTIAL + "\n"
                + "jclouds.provider=transient\n"
                + "jclouds.identity=" + IDENTITY + "\n"
                + "jclouds.credential=" + CREDENTIAL + "\n");
        Path log = dir.resolve("s3proxy-" + port + ".log");
        String java = ProcessHandle.current().info().command().orElseThrow();
        Process process = new ProcessBuilder(List.of(java, "-Xmx512m", "-jar", jar.toString(), "--properties",
                config.toString())).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        long deadlineNs = System.nanoTime() + READY_WAIT_NS_MAX;
        while (System.nanoTime() < deadlineNs) {
            if (!process.isAlive()) {
                throw new IOException("S3Proxy exited with " + process.exitValue() + ":\n" + Files.readString(log));
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
                return new S3ProxyServer(process, port, log);
            } catch (IOException notYet) {
                Thread.sleep(POLL_PERIOD_MS); // polling a child process for readiness, bounded by the deadline
            }
        }
        process.destroyForcibly();
        throw new IOException("S3Proxy did not listen on " + port + ":\n" + Files.readString(log));
    }

    /**
     * The jar: {@code -Dblockcache.s3proxyJar} (the pom sets it for tests), else where Maven puts it in the default
     * local repository.
     *
     * @throws IOException naming the path when there is no jar there
     */
    public static Path jar() throws IOException {
        String configured = System.getProperty("blockcache.s3proxyJar");
        Path jar = configured != null && !configured.contains("${") ? Path.of(configured)
                : Path.of(System.getProperty("user.home"), ".m2", "repository", "org", "gaul", "s3proxy", "4.1.0",
                        "s3proxy-4.1.0-jar-with-dependencies.jar");
        if (!Files.isRegularFile(jar)) {
            throw new IOException("no S3Proxy jar at " + jar + " (run ./mvnw test once online so Maven fetches it)");
        }
        return jar;
    }

    /** The endpoint URL. */
    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + port);
    }

    /** The environment a child process needs to reach this S3Proxy through the AWS default chains. */
    public Map<String, String> environment() {
        return Map.of("AWS_ACCESS_KEY_ID", IDENTITY, "AWS_SECRET_ACCESS_KEY", CREDENTIAL, "AWS_REGION", "us-east-1");
    }

    /** A fresh client of this S3Proxy, independent of blockcache's, for setting up and checking. */
    public S3Client client() {
        return S3Client.builder().endpointOverride(endpoint()).forcePathStyle(true).region(Region.US_EAST_1)
                .httpClient(Apache5HttpClient.create())
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(IDENTITY, CREDENTIAL)))
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED).build();
    }

    /** Creates {@code bucket}. */
    public void createBucket(String bucket) {
        try (S3Client client = client()) {
            client.createBucket(b -> b.bucket(bucket));
        }
    }

    /** What S3Proxy printed (for assertion messages). */
    public String log() throws IOException {
        return Files.readString(log);
    }

    /** Kills S3Proxy and waits for it to be gone. */
    @Override
    public void close() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }
}
