package io.blockcache.embed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blockcache.bench.S3ProxyServer;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;

/** The library API over an {@code s3://} backing, with S3Proxy as the S3 server in a separate process. */
@Timeout(180)
class BlockCacheS3Test {
    private static final long WAIT_SECONDS = 60;
    private static final String BUCKET = "embedded";
    /** The AWS default chains read these system properties; set for the test, cleared after. */
    private static final Map<String, String> AWS_PROPERTIES = Map.of("aws.accessKeyId", S3ProxyServer.IDENTITY,
            "aws.secretAccessKey", S3ProxyServer.CREDENTIAL, "aws.region", "us-east-1");

    @TempDir
    Path dir;
    private S3ProxyServer proxy;

    @BeforeEach
    void start() throws Exception {
        proxy = S3ProxyServer.start(dir);
        proxy.createBucket(BUCKET);
        AWS_PROPERTIES.forEach(System::setProperty);
    }

    @AfterEach
    void stop() throws Exception {
        AWS_PROPERTIES.keySet().forEach(System::clearProperty);
        proxy.close();
    }

    private BlockCacheConfig.Builder config(String cacheName) {
        return BlockCacheConfig.builder(dir.resolve(cacheName)).cacheSizeBytes(64L << 20)
                .backing("vol", "s3://" + BUCKET + "/vol").backingSizeBytes(64L << 20)
                .s3Endpoint(proxy.endpoint().toString());
    }

    @Test
    void anEmbeddedCacheOverS3CreatesTheVolumeAndItsDataReachesTheBucket() throws Exception {
        // Proves BlockCacheConfig configures an S3 backing: a new cache creates the volume (metadata and owner
        // record); in write-through a write and a flush through CachedVolume put the block into its chunk object
        // (read by an independent client, 1 MiB after the volume's start: the backing header); a reopen reads it
        // back; a second new cache is refused naming the owner; a bad endpoint or scheme fails at build().
        byte[] block = new byte[4096];
        Arrays.fill(block, (byte) 0x5c);
        try (BlockCache cache = BlockCache.open(config("cache.img").mode("writethrough").build())) {
            CachedVolume volume = cache.volume("vol");
            volume.write(8192, ByteBuffer.wrap(block), true).get(WAIT_SECONDS, TimeUnit.SECONDS);
            volume.flush().get(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(volume.read(8192, 4096).get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo(block);
        }
        assertThat(keys()).contains("vol/volume", "vol/owner", "vol/chunk-0000000000000000");
        byte[] chunk;
        try (S3Client client = proxy.client()) {
            chunk = client.getObjectAsBytes(b -> b.bucket(BUCKET).key("vol/chunk-0000000000000000")).asByteArray();
        }
        assertThat(Arrays.copyOfRange(chunk, (1 << 20) + 8192, (1 << 20) + 8192 + 4096)).isEqualTo(block);
        try (BlockCache again = BlockCache.open(config("cache.img").build())) {
            assertThat(again.volume("vol").read(8192, 4096).get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo(block);
        }
        assertThatThrownBy(() -> BlockCache.open(config("other.img").build()))
                .isInstanceOf(BlockCacheException.class).hasMessageContaining("is owned by")
                .hasMessageContaining("cache.img").hasMessageNotContaining("\n");
        assertThatThrownBy(() -> config("x.img").s3Endpoint("ftp://nowhere").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--s3-endpoint");
        assertThatThrownBy(() -> config("x.img").backing("bad", "gopher://host/x").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown scheme");
    }

    @Test
    void aStartRefusedForALaterBackingLeavesNothingInAnEarlierS3Volume() throws Exception {
        // Proves "refused, nothing written" across backings: a new cache whose second S3 volume is owned by another
        // cache is refused naming the owner, and the first volume, which its open created with an owner record
        // before the refusal, is taken back (no object under its prefix); the owned volume is untouched. And an
        // unreachable NBD backing listed after an S3 one is refused before the S3 volume is touched at all.
        try (BlockCache other = BlockCache.open(BlockCacheConfig.builder(dir.resolve("other.img"))
                .cacheSizeBytes(64L << 20).backing("far", "s3://" + BUCKET + "/far").backingSizeBytes(64L << 20)
                .s3Endpoint(proxy.endpoint().toString()).build())) {
            assertThat(other.volume("far")).isNotNull();
        }
        List<String> farBefore = keys("far/");
        byte[] ownerBefore = object("far/owner");
        assertThat(farBefore).contains("far/volume", "far/owner");

        assertThatThrownBy(() -> BlockCache.open(config("cache.img").backing("far", "s3://" + BUCKET + "/far")
                .build())).isInstanceOf(BlockCacheException.class).hasMessageContaining("is owned by")
                .hasMessageContaining("other.img").hasMessageNotContaining("\n");
        assertThat(keys("vol/")).as("the first volume, created and then taken back").isEmpty();
        assertThat(keys("far/")).isEqualTo(farBefore);
        assertThat(object("far/owner")).isEqualTo(ownerBefore);
        assertThat(dir.resolve("cache.img")).doesNotExist();

        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        assertThatThrownBy(() -> BlockCache.open(config("cache.img")
                .backing("remote", "nbd://127.0.0.1:" + closedPort + "/x").build()))
                .isInstanceOf(BlockCacheException.class).hasMessageContaining("remote")
                .hasMessageNotContaining("\n");
        assertThat(keys("vol/")).isEmpty();
    }

    private List<String> keys() {
        return keys("vol/");
    }

    private List<String> keys(String prefix) {
        try (S3Client client = proxy.client()) {
            return client.listObjectsV2(b -> b.bucket(BUCKET).prefix(prefix)).contents().stream()
                    .map(object -> object.key()).sorted().toList();
        }
    }

    private byte[] object(String key) {
        try (S3Client client = proxy.client()) {
            return client.getObjectAsBytes(b -> b.bucket(BUCKET).key(key)).asByteArray();
        }
    }
}
