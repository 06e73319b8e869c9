package io.blockcache.backing;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.bench.S3ProxyServer;
import io.blockcache.device.IoResult;
import io.blockcache.loop.LoopCalls;
import io.blockcache.loop.RealLoop;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;

/**
 * {@link S3Device} against a plain byte array, on S3Proxy: seeded batches of concurrent writes (any size, across
 * chunks, some FUA), reads and discard-free flushes on disjoint ranges, with small chunks so that the staging bound,
 * partial chunks and many PUTs in flight all happen. After each batch and flush the bucket, read by an independent
 * client, must equal the model.
 */
@Timeout(180)
class S3DeviceModelTest {
    private static final long SEED = Long.getLong("blockcache.s3ModelSeed", 20261201L);
    private static final int BATCHES = 40;
    private static final int OPS_PER_BATCH_MAX = 24;
    /** 64 KiB chunks and 48 of them: three times the staging bound. */
    private static final int CHUNK_BYTES = 64 << 10;
    private static final long VOLUME_BYTES = 48L * CHUNK_BYTES;
    private static final int BLOCK = S3Device.LOGICAL_BLOCK_BYTES;
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    @Test
    void seededBatchesMatchTheModelInTheBucket() throws Exception {
        // Proves (seed printed on failure) that whatever the order of completions, reads see the model, and after
        // every flush the chunk objects are exactly the model; also that the device read the old chunks (partial
        // writes) and PUT early (staging bound) along the way.
        Random random = new Random(SEED);
        byte[] model = new byte[(int) VOLUME_BYTES];
        S3Uri uri = new S3Uri("model", "v");
        try (S3ProxyServer proxy = S3ProxyServer.start(dir); RealLoop loop = new RealLoop("s3-model")) {
            proxy.createBucket("model");
            S3Options options = new S3Options(proxy.endpoint(), false, "model");
            S3Store store = S3Store.open(uri, options, StaticCredentialsProvider.create(
                    AwsBasicCredentials.create(S3ProxyServer.IDENTITY, S3ProxyServer.CREDENTIAL)));
            S3Device device = new S3Device(loop, store, new S3Volume(VOLUME_BYTES, CHUNK_BYTES, new UUID(3, 3)),
                    null, 8);
            try {
                for (int batch = 0; batch < BATCHES; batch++) {
                    String where = "seed " + SEED + " batch " + batch;
                    runBatch(loop, device, random, model, where);
                    IoResult flushed = LoopCalls.await(loop, done -> device.flush(done::accept), CALL_TIMEOUT);
                    assertThat(flushed).as(where).isEqualTo(IoResult.OK);
                    if (batch % 8 == 7 || batch == BATCHES - 1) {
                        assertThat(bucket(proxy, uri)).as(where + ": bucket after the flush").isEqualTo(model);
                    }
                }
                assertThat(device.putsCompleted()).isGreaterThan(BATCHES);
            } finally {
                LoopCalls.<Boolean>await(loop, done -> {
                    device.close();
                    done.accept(true);
                }, CALL_TIMEOUT);
            }
        }
    }

    /** One batch: random ops on disjoint block ranges, all submitted at once on the loop, then awaited. */
    private void runBatch(RealLoop loop, S3Device device, Random random, byte[] model, String where) {
        int ops = 1 + random.nextInt(OPS_PER_BATCH_MAX);
        List<long[]> taken = new ArrayList<>();
        List<Runnable> submits = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        AtomicInteger pending = new AtomicInteger();
        for (int i = 0; i < ops; i++) {
            int blocks = random.nextInt(8) == 0 ? 1 + random.nextInt(3 * CHUNK_BYTES / BLOCK)
                    : 1 + random.nextInt(16);
            long offset = (long) random.nextInt((int) (VOLUME_BYTES / BLOCK) - blocks + 1) * BLOCK;
            long end = offset + (long) blocks * BLOCK;
            if (taken.stream().anyMatch(r -> offset < r[1] && r[0] < end)) {
                continue;
            }
            taken.add(new long[] {offset, end});
            pending.incrementAndGet();
            if (random.nextInt(3) == 0) {
                byte[] expected = Arrays.copyOfRange(model, (int) offset, (int) end);
                ByteBuffer dst = ByteBuffer.allocate(blocks * BLOCK);
                submits.add(() -> device.read(offset, dst, result -> {
                    if (!result.ok() || !Arrays.equals(dst.array(), expected)) {
                        problems.add("read at " + offset + " of " + blocks + " blocks: " + result);
                    }
                    pending.decrementAndGet();
                }));
            } else {
                byte[] data = new byte[blocks * BLOCK];
                random.nextBytes(data);
                System.arraycopy(data, 0, model, (int) offset, data.length);
                boolean fua = random.nextInt(6) == 0;
                submits.add(() -> device.write(offset, ByteBuffer.wrap(data), fua, result -> {
                    if (!result.ok()) {
                        problems.add("write at " + offset + ": " + result);
                    }
                    pending.decrementAndGet();
                }));
            }
        }
        LoopCalls.<Boolean>await(loop, done -> {
            submits.forEach(Runnable::run);
            done.accept(true);
        }, CALL_TIMEOUT);
        long endNs = System.nanoTime() + CALL_TIMEOUT.toNanos();
        while (LoopCalls.<Integer>await(loop, done -> done.accept(pending.get()), CALL_TIMEOUT) > 0) {
            assertThat(System.nanoTime()).as(where + ": requests still pending").isLessThan(endNs);
            Thread.onSpinWait(); // each check is a loop round trip; bounded by CALL_TIMEOUT
        }
        assertThat(problems).as(where).isEmpty();
    }

    /** The volume as an independent client reads it from the chunk objects (a missing one is zeros). */
    private static byte[] bucket(S3ProxyServer proxy, S3Uri uri) {
        byte[] all = new byte[(int) VOLUME_BYTES];
        try (S3Client client = proxy.client()) {
            for (int index = 0; index < VOLUME_BYTES / CHUNK_BYTES; index++) {
                String key = uri.key(S3Volume.chunkName(index));
                try {
                    byte[] chunk = client.getObjectAsBytes(b -> b.bucket(uri.bucket()).key(key)).asByteArray();
                    System.arraycopy(chunk, 0, all, index * CHUNK_BYTES, chunk.length);
                } catch (NoSuchKeyException missing) {
                    // zeros
                }
            }
        }
        return all;
    }
}
