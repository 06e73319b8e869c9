package io.blockcache.embed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blockcache.bench.S3ProxyServer;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
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

    private java.util.List<String> keys() {
        try (S3Client client = proxy.client()) {
            return client.listObjectsV2(b -> b.bucket(BUCKET).prefix("vol/")).contents().stream()
                    .map(object -> object.key()).sorted().toList();
        }
    }
}
