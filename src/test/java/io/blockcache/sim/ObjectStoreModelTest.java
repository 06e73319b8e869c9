package io.blockcache.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.device.IoResult;
import io.blockcache.loop.Prng;
import io.blockcache.loop.SimLoop;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The object-store model: chunk staging, whole-chunk PUTs, GETs for partial chunks, FLUSH and FUA, its tail. */
class ObjectStoreModelTest {
    private static final int CHUNK = 4 << 20;
    private static final ObjectStoreConfig CONFIG = ObjectStoreConfig.defaults().withSize(1L << 30);

    private final SimLoop loop = new SimLoop();
    private final ObjectStoreModel store = new ObjectStoreModel(loop, CONFIG, new Prng(7));

    @Test
    void aWholeChunkIsPutAtOnceWithoutAGetAndItsWriteCompletesWhenStaged() {
        // Proves the real device's rule: a write covering a chunk is uploaded by one PUT, no GET, and a non-FUA
        // write is acknowledged from staging (before any PUT could have finished).
        long doneNs = write(CHUNK, CHUNK, false);
        assertThat(doneNs).isZero();
        assertThat(store.puts()).isEqualTo(1);
        loop.runUntil(() -> store.stagedChunks() == 0);
        assertThat(store.gets()).isZero();
        assertThat(store.putBytes()).isEqualTo(CHUNK);
    }

    @Test
    void partialWritesOfOneChunkCostOneGetAndOnePutAtTheFlush() {
        // Proves partial chunks wait in staging until a FLUSH, which fills them with one GET and uploads one PUT.
        write(0, 4096, false);
        write(65536, 8192, false);
        loop.runUntilIdle();
        assertThat(store.puts()).isZero();
        assertThat(store.stagedChunks()).isEqualTo(1);
        long flushNs = flush();
        assertThat(store.gets()).isEqualTo(1);
        assertThat(store.puts()).isEqualTo(1);
        assertThat(flushNs).as("a GET and a PUT: two latencies at least").isGreaterThanOrEqualTo(
                2 * CONFIG.latencyBaseNs());
        assertThat(store.stagedChunks()).isZero();
    }

    @Test
    void aFuaWriteCompletesOnlyOnceItsChunkIsStoredAndSurvivesACrash() {
        // Proves FUA means "PUT succeeded": its completion waits for the upload, and a power cut keeps it.
        long startNs = loop.nowNs();
        long doneNs = write(3 * CHUNK, CHUNK, true);
        assertThat(doneNs - startNs).isGreaterThanOrEqualTo(CONFIG.latencyBaseNs()
                + CHUNK * 1_000_000_000L / CONFIG.requestBytesPerSecond());
        store.crash(new BitSet());
        store.powerOn(loop);
        assertThat(read(3 * CHUNK, 512)).containsOnly((byte) 4);
    }

    @Test
    void stagedDataIsLostAtAPowerCutAndFlushedDataIsNot() {
        // Proves the crash semantics: unflushed staged writes may vanish (here all do), flushed ones never.
        write(0, 4096, false);
        flush();
        write(CHUNK, 4096, false);
        store.crash(new BitSet()); // every write not yet durable vanishes
        store.powerOn(loop);
        assertThat(read(0, 4096)).as("flushed").containsOnly((byte) 1);
        assertThat(read(CHUNK, 512)).as("staged, never flushed").containsOnly((byte) 0);
    }

    @Test
    void stagingIsBoundedAndTheOldestChunkIsUploadedToMakeRoom() {
        // Proves the staging bound: writes into more chunks than it holds upload the oldest ones (GET + PUT) first.
        int chunks = CONFIG.stagingChunksMax() + 8;
        int peak = 0;
        for (int c = 0; c < chunks; c++) {
            store.write((long) c * CHUNK, filled(4096, c), false, result -> { });
            peak = Math.max(peak, store.stagedChunks());
        }
        loop.runUntilIdle();
        assertThat(peak).isLessThanOrEqualTo(CONFIG.stagingChunksMax());
        assertThat(store.puts()).isGreaterThanOrEqualTo(8);
        assertThat(store.gets()).isEqualTo(store.puts());
    }

    @Test
    void latencyHasTheConfiguredMedianAndALongTail() {
        // Proves the latency draw: 4 KiB reads one at a time take base + Lomax, median ~30 ms, a tail past 250 ms.
        List<Long> latencies = new ArrayList<>();
        for (int i = 0; i < 4000; i++) {
            long startNs = loop.nowNs();
            read((long) (i % 64) * CHUNK, 4096);
            latencies.add(loop.nowNs() - startNs);
        }
        latencies.sort(Long::compare);
        long medianNs = latencies.get(2000);
        long p99Ns = latencies.get(3960);
        assertThat(medianNs).isBetween(25_000_000L, 35_000_000L);
        assertThat(p99Ns).isBetween(180_000_000L, 400_000_000L);
        assertThat(latencies.get(latencies.size() - 1)).isLessThanOrEqualTo(CONFIG.latencyMaxNs() + 1_000_000L);
    }

    private long write(long offsetBytes, int lengthBytes, boolean fua) {
        long[] doneNs = {-1};
        store.write(offsetBytes, filled(lengthBytes, (int) (offsetBytes / CHUNK) + 1), fua, result -> {
            assertThat(result.ok()).isTrue();
            doneNs[0] = loop.nowNs();
        });
        loop.runUntil(() -> doneNs[0] >= 0);
        return doneNs[0];
    }

    private long flush() {
        IoResult[] result = new IoResult[1];
        store.flush(r -> result[0] = r);
        loop.runUntil(() -> result[0] != null);
        assertThat(result[0].ok()).isTrue();
        return loop.nowNs();
    }

    private byte[] read(long offsetBytes, int lengthBytes) {
        ByteBuffer dst = ByteBuffer.allocate(lengthBytes);
        IoResult[] result = new IoResult[1];
        store.read(offsetBytes, dst, r -> result[0] = r);
        loop.runUntil(() -> result[0] != null);
        assertThat(result[0].ok()).isTrue();
        return dst.array();
    }

    /** A buffer of {@code value} bytes: chunk c's writes carry c + 1, so none is all zeroes. */
    private static ByteBuffer filled(int lengthBytes, int value) {
        byte[] bytes = new byte[lengthBytes];
        java.util.Arrays.fill(bytes, (byte) value);
        return ByteBuffer.wrap(bytes);
    }
}
