package io.blockcache.backing;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.bench.S3ProxyServer;
import io.blockcache.device.BlockDevice;
import io.blockcache.device.IoResult;
import io.blockcache.device.StickyFlushDevice;
import io.blockcache.loop.LoopCalls;
import io.blockcache.loop.RealLoop;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;

/**
 * {@link S3Device} behind {@link FaultyTcpProxy} in front of S3Proxy: a flaky network (resets, stalls, 503 SlowDown,
 * slow bodies) is ridden through by retries, and an outage longer than the retry time fails the flush for good while
 * the data stays staged.
 */
@Timeout(240)
class S3FlakyNetworkTest {
    private static final long SEED = Long.getLong("blockcache.s3FlakySeed", 20261207L);
    private static final int CHUNK_BYTES = 64 << 10;
    private static final int CHUNKS = 16;
    private static final long VOLUME_BYTES = (long) CHUNKS * CHUNK_BYTES;
    private static final int BLOCK = S3Device.LOGICAL_BLOCK_BYTES;
    /** Shorter than the proxy's stalls, so a stall costs a second, not the production 30 s. */
    private static final Duration SOCKET_TIMEOUT = Duration.ofSeconds(1);
    private static final Duration STALL = Duration.ofMillis(1500);
    /** Longer than the SDK's three quick attempts take. */
    private static final Duration BLIP = Duration.ofSeconds(2);
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(150);
    /** Longer than the SDK's own attempts with their backoff from 503s, so the device's retries happen too. */
    private static final Duration OUTAGE_RETRY_TIME = Duration.ofSeconds(8);

    @TempDir
    static Path dir;
    /** One S3Proxy for both tests (its start costs seconds on a loaded machine); each test has its own bucket. */
    private static S3ProxyServer s3;

    @BeforeAll
    static void startS3Proxy() throws Exception {
        s3 = S3ProxyServer.start(dir);
    }

    @AfterAll
    static void stopS3Proxy() throws Exception {
        if (s3 != null) {
            s3.close();
        }
    }

    @Test
    void writesFlushesAndReadsRideThroughInjectedFaults() throws Exception {
        // Proves (seed printed on failure) that with faults on 40 % of the connections (some start 2 s outages) and
        // every connection cut after its lifetime, every flush succeeds, reads through the device see what was
        // written, and the bucket holds every byte; and that the faults struck and the device retried.
        Random random = new Random(SEED);
        byte[] model = new byte[(int) VOLUME_BYTES];
        S3Uri uri = new S3Uri("flaky", "v");
        try (FaultyTcpProxy faults = FaultyTcpProxy.start(s3.endpoint(), SEED, 40, STALL, BLIP);
             RealLoop loop = new RealLoop("s3-flaky")) {
            s3.createBucket(uri.bucket());
            S3Device device = open(loop, faults, uri, 90_000);
            try {
                for (int round = 0; round < 12; round++) {
                    String where = "seed " + SEED + " round " + round;
                    for (int write = 0; write < 8; write++) {
                        int blocks = random.nextBoolean() ? CHUNK_BYTES / BLOCK : 1 + random.nextInt(40);
                        long offset = (long) random.nextInt((int) (VOLUME_BYTES / BLOCK) - blocks + 1) * BLOCK;
                        byte[] data = new byte[blocks * BLOCK];
                        random.nextBytes(data);
                        System.arraycopy(data, 0, model, (int) offset, data.length);
                        assertThat(call(loop, done -> device.write(offset, ByteBuffer.wrap(data), false, done::accept)))
                                .as(where + ": write at " + offset).isEqualTo(IoResult.OK);
                    }
                    assertThat(call(loop, done -> device.flush(done::accept))).as(where + ": flush")
                            .isEqualTo(IoResult.OK);
                }
                assertThat(readAll(loop, device)).as("seed " + SEED + ": read back through the device")
                        .isEqualTo(model);
                assertThat(bucket(s3, uri)).as("seed " + SEED + ": the bucket").isEqualTo(model);
                assertThat(faults.injectedTotal()).as("faults that struck").isGreaterThanOrEqualTo(10);
                assertThat(faults.injected(FaultyTcpProxy.Fault.BLIP)).as("outages").isGreaterThan(0);
                assertThat(device.retries()).as("requests retried by the device").isGreaterThan(0);
                assertThat(device.objectStoreStats().failures()).isZero();
            } finally {
                close(loop, device);
            }
        }
    }

    @Test
    void anOutageLongerThanTheRetryTimeFailsTheFlushStickilyAndKeepsTheDataStaged() throws Exception {
        // Proves that when the store is unreachable for longer than the retry time, the flush fails (after retries,
        // counted), every later flush fails too (sticky, as the engine wraps the device), the written data stays
        // staged and readable, and once the store is back the staged chunks still reach the bucket: nothing lost.
        Random random = new Random(SEED);
        byte[] model = new byte[(int) VOLUME_BYTES];
        S3Uri uri = new S3Uri("outage", "v");
        try (FaultyTcpProxy faults = FaultyTcpProxy.start(s3.endpoint(), SEED, 0, STALL, BLIP);
             RealLoop loop = new RealLoop("s3-outage")) {
            s3.createBucket(uri.bucket());
            S3Device device = open(loop, faults, uri, OUTAGE_RETRY_TIME.toMillis());
            BlockDevice sticky = new StickyFlushDevice(device);
            try {
                faults.outage(true);
                long startNs = System.nanoTime();
                for (long offset : new long[] {0, 3L * CHUNK_BYTES, 7L * CHUNK_BYTES}) {
                    byte[] data = new byte[CHUNK_BYTES];
                    random.nextBytes(data);
                    System.arraycopy(data, 0, model, (int) offset, data.length);
                    assertThat(call(loop, done -> sticky.write(offset, ByteBuffer.wrap(data), false, done::accept)))
                            .isEqualTo(IoResult.OK);
                }
                IoResult failed = call(loop, done -> sticky.flush(done::accept));
                assertThat(failed.ok()).as("flush during the outage: " + failed).isFalse();
                assertThat(System.nanoTime() - startNs).as("the flush waited for the retry time")
                        .isGreaterThanOrEqualTo(OUTAGE_RETRY_TIME.toNanos());
                // No "retries over" here: a first SDK call that backs off from 503s past the retry time is not retried.
                assertThat(failed.message()).contains("PUT of chunk-");
                assertThat(device.retries()).isGreaterThan(0);
                assertThat(device.objectStoreStats().failures()).isGreaterThan(0);
                assertThat(device.objectStoreStats().stagedChunks()).as("chunks still staged").isGreaterThan(0);
                for (long offset : new long[] {0, 3L * CHUNK_BYTES, 7L * CHUNK_BYTES}) {
                    assertThat(read(loop, sticky, offset)).as("staged chunk at " + offset + ", read through the"
                            + " device").isEqualTo(Arrays.copyOfRange(model, (int) offset, (int) offset + CHUNK_BYTES));
                }

                faults.outage(false);
                IoResult again = call(loop, done -> sticky.flush(done::accept));
                assertThat(again.ok()).as("the error is sticky").isFalse();
                assertThat(again.message()).contains("PUT of chunk-");
                // A PUT whose last attempt began during the outage may still fail after it and fail one more flush of
                // the device itself (the wrapper stays sticky); the chunk stays staged, so a later flush PUTs it.
                IoResult flushed = call(loop, done -> device.flush(done::accept));
                for (int retry = 0; retry < 3 && !flushed.ok(); retry++) {
                    flushed = call(loop, done -> device.flush(done::accept));
                }
                assertThat(flushed).as("the staged chunks, PUT once the store is back").isEqualTo(IoResult.OK);
                assertThat(bucket(s3, uri)).as("the bucket: nothing was lost").isEqualTo(model);
            } finally {
                close(loop, device);
            }
        }
    }

    /** A device over the faulty proxy, with a short socket timeout and {@code retryTimeMs}. */
    private static S3Device open(RealLoop loop, FaultyTcpProxy faults, S3Uri uri, long retryTimeMs)
            throws Exception {
        S3Options options = new S3Options(faults.endpoint(), false, "flaky", retryTimeMs);
        S3Store store = S3Store.open(uri, options, StaticCredentialsProvider.create(AwsBasicCredentials.create(
                S3ProxyServer.IDENTITY, S3ProxyServer.CREDENTIAL)), S3Store.httpClient(SOCKET_TIMEOUT));
        return new S3Device(loop, store, new S3Volume(VOLUME_BYTES, CHUNK_BYTES, new UUID(7, SEED)), null, 8,
                retryTimeMs);
    }

    private static IoResult call(RealLoop loop, java.util.function.Consumer<java.util.function.Consumer<IoResult>>
            operation) {
        return LoopCalls.await(loop, operation, CALL_TIMEOUT);
    }

    /** The whole volume read through {@code device}, one chunk at a time. */
    private static byte[] readAll(RealLoop loop, BlockDevice device) {
        byte[] all = new byte[(int) VOLUME_BYTES];
        for (int index = 0; index < CHUNKS; index++) {
            System.arraycopy(read(loop, device, (long) index * CHUNK_BYTES), 0, all, index * CHUNK_BYTES,
                    CHUNK_BYTES);
        }
        return all;
    }

    /** The chunk at {@code offset} read through {@code device}. */
    private static byte[] read(RealLoop loop, BlockDevice device, long offset) {
        ByteBuffer dst = ByteBuffer.allocate(CHUNK_BYTES);
        assertThat(call(loop, done -> device.read(offset, dst, done::accept))).as("read at " + offset)
                .isEqualTo(IoResult.OK);
        return dst.array();
    }

    /** The volume as an independent client reads it from S3Proxy directly (a missing chunk is zeros). */
    private static byte[] bucket(S3ProxyServer s3, S3Uri uri) {
        byte[] all = new byte[(int) VOLUME_BYTES];
        try (S3Client client = s3.client()) {
            for (int index = 0; index < CHUNKS; index++) {
                String key = uri.key(S3Volume.chunkName(index));
                try {
                    byte[] chunk = client.getObjectAsBytes(b -> b.bucket(uri.bucket()).key(key)).asByteArray();
                    System.arraycopy(chunk, 0, all, index * CHUNK_BYTES, chunk.length);
                } catch (NoSuchKeyException missing) {
                    Arrays.fill(all, index * CHUNK_BYTES, (index + 1) * CHUNK_BYTES, (byte) 0);
                }
            }
        }
        return all;
    }

    private static void close(RealLoop loop, S3Device device) {
        LoopCalls.<Boolean>await(loop, done -> {
            device.close();
            done.accept(true);
        }, CALL_TIMEOUT);
    }
}
