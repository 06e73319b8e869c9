package io.blockcache.backing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blockcache.bench.S3ProxyServer;
import io.blockcache.device.IoResult;
import io.blockcache.device.ObjectStoreStats;
import io.blockcache.device.IoStatus;
import io.blockcache.loop.LoopCalls;
import io.blockcache.loop.RealLoop;
import java.io.IOException;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * {@link S3Device} against a real S3 server (S3Proxy in a separate process): what reaches the bucket and when, read
 * back through an independent S3 client; the staging bound; partial chunks completed from the old object; discard;
 * a failed PUT failing the flush; ownership with conditional PUTs.
 */
@Timeout(120)
class S3DeviceTest {
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(60);
    private static final String BUCKET = "volumes";
    private static final int CHUNK = S3Volume.CHUNK_BYTES_DEFAULT;
    private static final long VOLUME_BYTES = 128L << 20;
    private static final InstantSource CLOCK = InstantSource.fixed(Instant.parse("2026-01-02T03:04:05Z"));

    @TempDir
    static Path dir;
    private static S3ProxyServer proxy;
    private final RealLoop loop = new RealLoop("s3-device-test");
    private final List<S3Device> opened = new ArrayList<>();
    private static int prefixes;

    @BeforeAll
    static void startProxy() throws Exception {
        proxy = S3ProxyServer.start(dir);
        proxy.createBucket(BUCKET);
    }

    @AfterAll
    static void stopProxy() throws Exception {
        if (proxy != null) {
            proxy.close();
        }
    }

    @AfterEach
    void closeAll() {
        LoopCalls.<Boolean>await(loop, done -> {
            opened.forEach(S3Device::close);
            done.accept(true);
        }, CALL_TIMEOUT);
        loop.close();
    }

    @Test
    void writesSpanningChunksReachTheBucketAtTheFlushAndReadBackEverywhere() throws Exception {
        // Proves the layout and the flush: 1 MiB written across the boundary of chunks 0 and 1 is in no object before
        // the flush (volatile, chunks incomplete) and in both after it, each chunk whole (its unwritten rest zeros);
        // the device reads it back, and reads an untouched chunk as zeros.
        S3Uri uri = newPrefix();
        S3Device device = open(uri, "node-a", false);
        byte[] data = random(1 << 20, 1);
        long offset = CHUNK - (512 << 10);
        assertThat(write(device, offset, data, false).ok()).isTrue();
        assertThat(object(uri, 0)).isNull();
        assertThat(flush(device)).isEqualTo(IoResult.OK);
        byte[] chunk0 = object(uri, 0);
        byte[] chunk1 = object(uri, 1);
        assertThat(chunk0).hasSize(CHUNK);
        assertThat(Arrays.copyOfRange(chunk0, (int) offset, CHUNK)).isEqualTo(Arrays.copyOf(data, 512 << 10));
        assertThat(Arrays.copyOf(chunk1, 512 << 10)).isEqualTo(Arrays.copyOfRange(data, 512 << 10, 1 << 20));
        assertThat(Arrays.copyOfRange(chunk1, 512 << 10, CHUNK)).isEqualTo(new byte[CHUNK - (512 << 10)]);
        assertThat(read(device, offset, 1 << 20)).isEqualTo(data);
        assertThat(read(device, 5L * CHUNK + 4096, 8192)).isEqualTo(new byte[8192]);
        assertThat(object(uri, 5)).isNull();
        assertThat(device.writeUnitBytes()).isEqualTo(CHUNK);
    }

    @Test
    void theCountersSayWhatWasSentAndWhatIsStaged() throws Exception {
        // Proves the statistics (/api/stats backing[].s3, /metrics): a partial write stages one chunk and GETs the
        // old one (a missing object: zeros, still a GET); the flush PUTs it whole; a read of another chunk is one
        // ranged GET; a discard of a whole chunk one DELETE; the owner record names this cache; a take-over fences.
        S3Uri uri = newPrefix();
        S3Device device = open(uri, "host-a:/cache-a", false);
        ObjectStoreStats fresh = device.objectStoreStats();
        assertThat(fresh.puts() + fresh.gets() + fresh.deletes() + fresh.failures()).isZero();
        assertThat(fresh.ownership()).isEqualTo("owned by host-a:/cache-a");
        assertThat(write(device, CHUNK + 4096, random(4096, 9), false)).isEqualTo(IoResult.OK);
        assertThat(device.objectStoreStats().stagedChunks()).isEqualTo(1);
        assertThat(flush(device)).isEqualTo(IoResult.OK);
        read(device, 3L * CHUNK, 8192);
        assertThat(discard(device, 4L * CHUNK, CHUNK)).isEqualTo(IoResult.OK);
        ObjectStoreStats after = device.objectStoreStats();
        assertThat(after.puts()).isEqualTo(1);
        assertThat(after.bytesPut()).isEqualTo(CHUNK);
        assertThat(after.gets()).isEqualTo(2); // the old chunk 1, then 8 KiB of chunk 3
        assertThat(after.bytesGot()).isEqualTo(CHUNK + 8192);
        assertThat(after.deletes()).isEqualTo(1);
        assertThat(after.failures()).isZero();
        assertThat(after.stagedChunks()).isZero();
        assertThat(after.stagedChunksMax()).isEqualTo(S3Device.STAGING_CHUNKS_MAX);
        assertThat(device.lease().renew()).isTrue();
        assertThat(device.objectStoreStats().leaseRenewals()).isEqualTo(1);
        assertThat(device.objectStoreStats().fenced()).isFalse();
        device.fence("taken over by host-b");
        assertThat(device.objectStoreStats().fenced()).isTrue();
        assertThat(device.objectStoreStats().ownership()).isEqualTo("taken over by host-b");
    }

    @Test
    void aPartialWriteKeepsTheRestOfTheOldChunk() throws Exception {
        // Proves read-modify-write: a 4 KiB write into a chunk that exists is PUT at the flush as the old chunk with
        // those 4 KiB replaced, and a read of the unwritten part before the flush returns the old bytes.
        S3Uri uri = newPrefix();
        S3Device device = open(uri, "node-a", false);
        byte[] old = random(CHUNK, 2);
        try (S3Client client = proxy.client()) {
            client.putObject(b -> b.bucket(BUCKET).key(uri.key(S3Volume.chunkName(2))), RequestBody.fromBytes(old));
        }
        byte[] patch = random(4096, 3);
        assertThat(write(device, 2L * CHUNK + 8192, patch, false).ok()).isTrue();
        assertThat(read(device, 2L * CHUNK, 16384)).isEqualTo(concat(Arrays.copyOf(old, 8192), patch,
                Arrays.copyOfRange(old, 12288, 16384)));
        assertThat(flush(device)).isEqualTo(IoResult.OK);
        byte[] expected = old.clone();
        System.arraycopy(patch, 0, expected, 8192, 4096);
        assertThat(object(uri, 2)).isEqualTo(expected);
    }

    @Test
    void aFuaWriteIsInTheBucketWhenItCompletesAndWholeChunksGoWithoutAFlush() throws Exception {
        // Proves the PUT triggers other than a flush: a FUA write completes only after its chunk's PUT, and a chunk
        // filled by writes is PUT without being asked (seen by an independent client shortly after).
        S3Uri uri = newPrefix();
        S3Device device = open(uri, "node-a", false);
        byte[] fua = random(4096, 4);
        assertThat(write(device, 3L * CHUNK, fua, true)).isEqualTo(IoResult.OK);
        assertThat(Arrays.copyOf(object(uri, 3), 4096)).isEqualTo(fua);
        byte[] whole = random(CHUNK, 5);
        assertThat(write(device, 4L * CHUNK, whole, false)).isEqualTo(IoResult.OK);
        long endNs = System.nanoTime() + CALL_TIMEOUT.toNanos();
        while (device.putsCompleted() < 2 && System.nanoTime() < endNs) {
            Thread.sleep(10); // waits for the I/O thread's PUT, bounded by CALL_TIMEOUT
        }
        assertThat(object(uri, 4)).isEqualTo(whole);
    }

    @Test
    void moreChunksThanTheStagingBoundAreAllWrittenAndPutEarly() throws Exception {
        // Proves the staging bound: 4 KiB writes into 24 chunks (the bound is 16) all complete, at least 8 chunks
        // are PUT before any flush to make room, and after the flush every one is in the bucket.
        S3Uri uri = newPrefix();
        S3Device device = open(uri, "node-a", false);
        int chunks = S3Device.STAGING_CHUNKS_MAX + 8;
        List<byte[]> written = new ArrayList<>();
        for (int i = 0; i < chunks; i++) {
            byte[] block = random(4096, 100 + i);
            written.add(block);
            assertThat(write(device, (long) i * CHUNK, block, false)).isEqualTo(IoResult.OK);
        }
        assertThat(device.putsCompleted()).isGreaterThanOrEqualTo(chunks - S3Device.STAGING_CHUNKS_MAX);
        assertThat(flush(device)).isEqualTo(IoResult.OK);
        for (int i = 0; i < chunks; i++) {
            assertThat(Arrays.copyOf(object(uri, i), 4096)).as("chunk " + i).isEqualTo(written.get(i));
        }
    }

    @Test
    void discardOfAWholeChunkDeletesItsObjectAndItReadsAsZeros() throws Exception {
        // Proves discard: a range covering chunk 1 whole and parts of chunks 0 and 2 deletes chunk 1's object only.
        S3Uri uri = newPrefix();
        S3Device device = open(uri, "node-a", false);
        for (int i = 0; i < 3; i++) {
            assertThat(write(device, (long) i * CHUNK, random(CHUNK, 10 + i), false)).isEqualTo(IoResult.OK);
        }
        assertThat(flush(device)).isEqualTo(IoResult.OK);
        IoResult discarded = LoopCalls.await(loop, done -> device.discard(CHUNK / 2, 2L * CHUNK, done::accept),
                CALL_TIMEOUT);
        assertThat(discarded).isEqualTo(IoResult.OK);
        assertThat(object(uri, 0)).isNotNull();
        assertThat(object(uri, 1)).isNull();
        assertThat(object(uri, 2)).isNotNull();
        assertThat(read(device, CHUNK, 4096)).isEqualTo(new byte[4096]);
    }

    @Test
    void aFailedPutFailsTheFlushAndTheDataStaysReadable() throws Exception {
        // Proves the failure rule: with the store unreachable (a device on a dead endpoint), the PUT of a chunk written
        // whole fails (after the device's retries, here for 1 s), the next flush fails naming it, and the staged write
        // still reads back (nothing dropped).
        S3Uri uri = newPrefix();
        open(uri, "node-a", false);
        int deadPort = freePort();
        S3Options dead = new S3Options(URI.create("http://127.0.0.1:" + deadPort), false, "node-a");
        S3Store deadStore = S3Store.open(uri, dead, credentials());
        S3Device device = new S3Device(loop, deadStore, new S3Volume(VOLUME_BYTES, CHUNK, new UUID(1, 2)), null, 2,
                1_000);
        opened.add(device);
        byte[] block = random(CHUNK, 6);
        assertThat(write(device, 0, block, false)).isEqualTo(IoResult.OK);
        IoResult flushed = flush(device);
        assertThat(flushed.status()).isEqualTo(IoStatus.IO_ERROR);
        assertThat(flushed.message()).contains("chunk-0000000000000000");
        assertThat(device.putFailures()).isEqualTo(1);
        assertThat(device.retries()).as("a refused connection is retried").isGreaterThan(0);
        assertThat(read(device, 0, CHUNK)).isEqualTo(block);
    }

    /**
     * One renewal that the store answered: a renewal that cannot reach it keeps the lease by design (counted in
     * {@code renewalFailures}), and in one loaded fresh-clone run a single one did, so it is tried again, at most
     * three times.
     */
    private static boolean renewReachingTheStore(S3Lease lease) {
        for (int attempt = 1; ; attempt++) {
            long failuresBefore = lease.renewalFailures();
            boolean renewed = lease.renew();
            if (lease.renewalFailures() == failuresBefore || attempt == 3) {
                return renewed;
            }
        }
    }

    @Test
    void oneOwnerPerVolumeAndATakeOverFencesTheOldOwner() throws Exception {
        // Proves ownership: a second cache is refused with a line naming the owner; the owner itself reopens; a
        // take-over replaces the record, the old owner's next renewal sees it and its PUTs fail from then on.
        S3Uri uri = newPrefix();
        S3Device first = open(uri, "host-a:/cache-a", false);
        assertThatThrownBy(() -> open(uri, "host-b:/cache-b", false))
                .isInstanceOf(IOException.class).hasMessageContaining("is owned by host-a:/cache-a")
                .hasMessageContaining("--take-over").hasMessageNotContaining("\n");
        S3Device second = open(uri, "host-b:/cache-b", true);
        assertThat(second.lease().ownerId()).isEqualTo("host-b:/cache-b");
        assertThat(renewReachingTheStore(first.lease())).isFalse();
        assertThat(first.lease().lostTo()).contains("taken over by host-b:/cache-b");
        first.fence(first.lease().lostTo());
        IoResult fenced = write(first, 0, random(4096, 7), true);
        assertThat(fenced.status()).isEqualTo(IoStatus.IO_ERROR);
        assertThat(fenced.message()).contains("taken over");
        assertThat(second.lease().renew()).isTrue();
    }

    @Test
    void s3ProxyHonoursConditionalPuts() throws Exception {
        // Proves what the lease relies on, against S3Proxy 4.1.0: If-None-Match: * fails on an existing object and
        // If-Match fails on a stale entity tag (both 412), and each succeeds when its condition holds.
        S3Uri uri = newPrefix();
        try (S3Store store = S3Store.open(uri, new S3Options(proxy.endpoint(), false, "x"), credentials())) {
            String first = store.putIf("probe", new byte[] {1}, null);
            assertThat(first).isNotNull();
            assertThat(store.putIf("probe", new byte[] {2}, null)).isNull();
            String second = store.putIf("probe", new byte[] {3}, first);
            assertThat(second).isNotNull().isNotEqualTo(first);
            assertThat(store.putIf("probe", new byte[] {4}, first)).isNull();
            assertThat(store.get("probe").body()).containsExactly(3);
        }
    }

    @Test
    void aCreateWhoseReplyWasLostIsStillTakenBackByWithdraw() throws Exception {
        // Proves the lease knows its own create when the reply was lost: the first conditional PUT of the record
        // reaches the bucket but reports 412 (what the SDK's retry of a PUT whose reply was lost ends in); acquire
        // still succeeds, and withdraw deletes the record it made. A record that was there before (our own, same
        // bytes under the fixed clock) is taken back and stays after withdraw.
        S3Uri uri = newPrefix();
        AtomicInteger lostReplies = new AtomicInteger();
        try (S3Store store = S3Store.over(uri, replyOfFirstCreateLost(proxy.client(), lostReplies), uri.toString())) {
            S3Lease lease = S3Lease.acquire(store, "node-a", false, CLOCK, line -> { });
            assertThat(lostReplies).hasValue(1);
            assertThat(store.get(S3Lease.OBJECT_NAME)).isNotNull();
            lease.withdraw();
            assertThat(store.get(S3Lease.OBJECT_NAME)).as("the record this acquire created").isNull();

            S3Lease.acquire(store, "node-a", false, CLOCK, line -> { }).stopRenewing();
            S3Lease again = S3Lease.acquire(store, "node-a", false, CLOCK, line -> { });
            again.withdraw();
            assertThat(store.get(S3Lease.OBJECT_NAME)).as("a record taken back").isNotNull();
        }
    }

    /**
     * A client whose first {@code If-None-Match: *} PUT of an owner record is carried out and then answered with 412,
     * as when a reply is lost and the SDK's retry meets the object its first attempt wrote.
     */
    private static S3Client replyOfFirstCreateLost(S3Client real, AtomicInteger lostReplies) {
        InvocationHandler handler = (self, method, args) -> {
            Object result;
            try {
                result = method.invoke(real, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
            if (method.getName().equals("putObject") && args != null && args[0] instanceof PutObjectRequest put
                    && "*".equals(put.ifNoneMatch()) && put.key().endsWith("/" + S3Lease.OBJECT_NAME)
                    && lostReplies.getAndIncrement() == 0) {
                throw S3Exception.builder().statusCode(412).message("precondition failed (test: reply lost)").build();
            }
            return result;
        };
        return (S3Client) Proxy.newProxyInstance(S3Client.class.getClassLoader(), new Class<?>[] {S3Client.class},
                handler);
    }

    @Test
    void badLocationsAreOneLineErrorsAndWriteNothing() throws Exception {
        // Proves the start-up refusals: a bucket that does not exist, an endpoint nobody listens on, a prefix
        // without a volume when none may be created, a new volume too small for the header; nothing appears in the
        // bucket.
        S3Uri missingBucket = new S3Uri("no-such-bucket", "v");
        assertThatThrownBy(() -> open(missingBucket, "node-a", false))
                .hasMessageContaining("bucket \"no-such-bucket\" does not exist").hasMessageNotContaining("\n");
        S3Uri uri = newPrefix();
        S3Options dead = new S3Options(URI.create("http://127.0.0.1:" + freePort()), false, "node-a");
        assertThatThrownBy(() -> S3Backing.open(loop, S3Store.open(uri, dead, credentials()), uri, dead,
                new S3Backing.Create(VOLUME_BYTES, new UUID(1, 1), 0), CLOCK, line -> { }))
                .hasMessageContaining("cannot reach the S3 endpoint").hasMessageNotContaining("\n");
        S3Options options = new S3Options(proxy.endpoint(), false, "node-a");
        assertThatThrownBy(() -> S3Backing.open(loop, S3Store.open(uri, options, credentials()), uri, options,
                S3Backing.Create.NEVER, CLOCK, line -> { }))
                .hasMessageContaining("holds no blockcache volume").hasMessageNotContaining("\n");
        assertThatThrownBy(() -> S3Backing.open(loop, S3Store.open(uri, options, credentials()), uri, options,
                new S3Backing.Create(1 << 20, new UUID(1, 1), 1 << 20), CLOCK, line -> { }))
                .hasMessageContaining("too small").hasMessageNotContaining("\n");
        try (S3Client client = proxy.client()) {
            assertThat(client.listObjectsV2(b -> b.bucket(BUCKET).prefix(uri.prefix() + "/")).contents()).isEmpty();
        }
    }

    private S3Uri newPrefix() {
        return new S3Uri(BUCKET, "vol" + (prefixes++));
    }

    private S3Device open(S3Uri uri, String owner, boolean takeOver) throws IOException {
        S3Options options = new S3Options(proxy.endpoint(), takeOver, owner);
        S3Device device = S3Backing.open(loop, S3Store.open(uri, options, credentials()), uri, options,
                new S3Backing.Create(VOLUME_BYTES, new UUID(7, 7), 0), CLOCK, line -> { });
        opened.add(device);
        return device;
    }

    private static StaticCredentialsProvider credentials() {
        return StaticCredentialsProvider.create(AwsBasicCredentials.create(S3ProxyServer.IDENTITY,
                S3ProxyServer.CREDENTIAL));
    }

    private IoResult write(S3Device device, long offset, byte[] data, boolean fua) {
        return LoopCalls.await(loop, done -> device.write(offset, ByteBuffer.wrap(data), fua, done::accept),
                CALL_TIMEOUT);
    }

    private IoResult flush(S3Device device) {
        return LoopCalls.await(loop, done -> device.flush(done::accept), CALL_TIMEOUT);
    }

    private IoResult discard(S3Device device, long offset, long length) {
        return LoopCalls.await(loop, done -> device.discard(offset, length, done::accept), CALL_TIMEOUT);
    }

    private byte[] read(S3Device device, long offset, int length) {
        ByteBuffer buffer = ByteBuffer.allocate(length);
        IoResult result = LoopCalls.await(loop, done -> device.read(offset, buffer, done::accept), CALL_TIMEOUT);
        assertThat(result).isEqualTo(IoResult.OK);
        return buffer.array();
    }

    /** Chunk {@code index} as an independent client sees it, or null if there is no object. */
    private static byte[] object(S3Uri uri, long index) {
        try (S3Client client = proxy.client()) {
            return client.getObjectAsBytes(b -> b.bucket(BUCKET).key(uri.key(S3Volume.chunkName(index))))
                    .asByteArray();
        } catch (NoSuchKeyException missing) {
            return null;
        }
    }

    private static byte[] random(int length, long seed) {
        byte[] bytes = new byte[length];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    private static byte[] concat(byte[]... parts) {
        byte[] all = new byte[Arrays.stream(parts).mapToInt(p -> p.length).sum()];
        int at = 0;
        for (byte[] part : parts) {
            System.arraycopy(part, 0, all, at, part.length);
            at += part.length;
        }
        return all;
    }

    private static int freePort() throws IOException {
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1,
                java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
