package io.blockcache.nbd;

import static io.blockcache.nbd.NbdProtocol.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.loop.Prng;
import io.blockcache.nbd.NbdTestClient.Extent;
import io.blockcache.nbd.NbdTestClient.Reply;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class NbdCommandTest {
    private static NbdFixture fixture;

    @BeforeAll
    static void start() throws Exception {
        fixture = new NbdFixture();
    }

    @AfterAll
    static void stop() throws Exception {
        fixture.close();
    }

    private static byte[] pattern(int seed, int bytes) {
        byte[] data = new byte[bytes];
        new Prng(seed).nextBytes(data);
        return data;
    }

    @Test
    void writesReadBackThroughSimpleAndStructuredReplies() throws Exception {
        // Proves WRITE (plain and FUA) and READ round trips, with simple replies and structured ones (with DF).
        byte[] data = pattern(1, 64 << 10);
        try (NbdTestClient simple = fixture.client().go("default", false);
             NbdTestClient structured = fixture.client().go("default", true)) {
            assertThat(simple.write(1 << 20, data, 0)).isZero();
            assertThat(simple.write((1 << 20) + data.length, data, CMD_FLAG_FUA)).isZero();
            assertThat(simple.read(1 << 20, data.length)).isEqualTo(data);
            Reply reply = structured.call(CMD_FLAG_DF, CMD_READ, (1 << 20) + data.length, data.length, null);
            assertThat(reply.structured()).isTrue();
            assertThat(reply.error()).isZero();
            assertThat(reply.data()).isEqualTo(data);
            assertThat(structured.call(0, CMD_READ, 0, 0, null).error()).isZero();
        }
    }

    @Test
    void unalignedWritesZeroesAndReadsMatchAModel() throws Exception {
        // Proves byte-granular read-modify-write: random unaligned WRITE / WRITE_ZEROES / READ against a model.
        long seed = 20240611L;
        Prng prng = new Prng(seed);
        int regionBytes = 96 << 10;
        long base = 4L << 20;
        byte[] model = new byte[regionBytes];
        try (NbdTestClient client = fixture.client().go("default", true)) {
            assertThat(client.write(base, model, 0)).isZero(); // start from known zeroes
            for (int step = 0; step < 300; step++) {
                int offset = prng.nextInt(regionBytes - 1);
                int length = 1 + prng.nextInt(Math.min(regionBytes - offset, 3000));
                int kind = prng.nextInt(3);
                String where = "seed " + seed + " step " + step + " kind " + kind + " [" + offset + ", +" + length
                        + ")";
                if (kind == 0) {
                    byte[] data = pattern(step, length);
                    int flags = step % 7 == 0 ? CMD_FLAG_FUA : 0;
                    assertThat(client.write(base + offset, data, flags)).as(where).isZero();
                    System.arraycopy(data, 0, model, offset, length);
                } else if (kind == 1) {
                    Reply zeroed = client.call(0, CMD_WRITE_ZEROES, base + offset, length, null);
                    assertThat(zeroed.error()).as(where).isZero();
                    Arrays.fill(model, offset, offset + length, (byte) 0);
                } else {
                    assertThat(client.read(base + offset, length)).as(where)
                            .isEqualTo(Arrays.copyOfRange(model, offset, offset + length));
                }
            }
            assertThat(client.read(base, regionBytes)).isEqualTo(model);
        }
    }

    @Test
    void overlappingUnalignedWritesFromTwoConnectionsLoseNoUpdate() throws Exception {
        // Proves the per-export sector lock: two RMWs of one sector from two connections, held at the same
        // point (the first one's sector read parked), both land; without the lock the second would undo the first.
        long sectorOffset = 9L << 20; // never written: the RMW read misses and goes to the (gated) backing device
        byte[] first = pattern(11, 100);
        byte[] second = pattern(12, 100);
        try (NbdTestClient a = fixture.client().go("default", false);
             NbdTestClient b = fixture.client().go("default", false)) {
            fixture.backing.closeGate();
            long handleA = a.send(0, CMD_WRITE, sectorOffset + 10, first.length, first);
            assertThat(fixture.backing.awaitParked(1)).isTrue();
            long handleB = b.send(0, CMD_WRITE, sectorOffset + 300, second.length, second);
            // B's request has reached the loop once a later request on B, handed over after it, is answered.
            assertThat(b.call(0, CMD_FLUSH, 0, 0, null).error()).isZero();
            fixture.backing.openGate();
            assertThat(a.readReply()).satisfies(r -> assertThat(r.handle()).isEqualTo(handleA))
                    .satisfies(r -> assertThat(r.error()).isZero());
            assertThat(b.readReply()).satisfies(r -> assertThat(r.handle()).isEqualTo(handleB))
                    .satisfies(r -> assertThat(r.error()).isZero());
            byte[] sector = a.read(sectorOffset, 512);
            assertThat(Arrays.copyOfRange(sector, 10, 110)).isEqualTo(first);
            assertThat(Arrays.copyOfRange(sector, 300, 400)).isEqualTo(second);
        }
    }

    @Test
    void repliesCompleteOutOfOrderAndManyRequestsPipeline() throws Exception {
        // Proves out-of-order replies: a read held at the backing device is overtaken by later requests; and 64
        // pipelined requests all get their own replies.
        byte[] cached = pattern(3, 4096);
        try (NbdTestClient client = fixture.client().go("default", true)) {
            assertThat(client.write(0, cached, 0)).isZero();
            fixture.backing.closeGate();
            long slow = client.send(0, CMD_READ, 10L << 20, 4096, null); // a miss: parked
            assertThat(fixture.backing.awaitParked(1)).isTrue();
            long fast = client.send(0, CMD_READ, 0, 4096, null); // a hit
            Reply first = client.readReply();
            assertThat(first.handle()).isEqualTo(fast);
            assertThat(first.data()).isEqualTo(cached);
            fixture.backing.openGate();
            assertThat(client.readReply().handle()).isEqualTo(slow);

            Map<Long, Integer> expected = new HashMap<>();
            for (int i = 0; i < 64; i++) {
                byte[] data = pattern(100 + i, 1000);
                expected.put(client.send(0, CMD_WRITE, (12L << 20) + i * 1000L, data.length, data), i);
            }
            for (int i = 0; i < 64; i++) {
                Reply reply = client.readReply();
                assertThat(expected.remove(reply.handle())).isNotNull();
                assertThat(reply.error()).isZero();
            }
            assertThat(client.read((12L << 20) + 5000, 1000)).isEqualTo(pattern(105, 1000));
        }
    }

    @Test
    void flushTrimZeroesAndCacheFollowTheirFlags() throws Exception {
        // Proves FLUSH, TRIM (FUA too, unaligned is fine), WRITE_ZEROES with NO_HOLE and FUA, FAST_ZERO refused
        // with ENOTSUP, and CACHE.
        try (NbdTestClient client = fixture.client().go("default", true)) {
            byte[] data = pattern(5, 8192);
            assertThat(client.write(2L << 20, data, 0)).isZero();
            assertThat(client.call(0, CMD_FLUSH, 0, 0, null).error()).isZero();
            assertThat(client.call(CMD_FLAG_NO_HOLE | CMD_FLAG_FUA, CMD_WRITE_ZEROES, (2L << 20) + 100, 5000, null)
                    .error()).isZero();
            byte[] expected = data.clone();
            Arrays.fill(expected, 100, 5100, (byte) 0);
            assertThat(client.read(2L << 20, 8192)).isEqualTo(expected);
            Reply fast = client.call(CMD_FLAG_FAST_ZERO, CMD_WRITE_ZEROES, 2L << 20, 4096, null);
            assertThat(fast.error()).isEqualTo(ENOTSUP);
            assertThat(client.read(2L << 20, 8192)).isEqualTo(expected); // nothing zeroed
            assertThat(client.call(0, CMD_TRIM, (2L << 20) + 7, 3000, null).error()).isZero();
            assertThat(client.call(CMD_FLAG_FUA, CMD_TRIM, 2L << 20, 8192, null).error()).isZero();
            assertThat(client.call(0, CMD_CACHE, (3L << 20) + 1, 200_000, null).error()).isZero();
            assertThat(client.call(0, CMD_TRIM, 0, 100, null).error()).isZero(); // no whole sector: a no-op
        }
    }

    @Test
    void blockStatusReportsCachedDirtyAndUncachedRanges() throws Exception {
        // Proves BLOCK_STATUS: blockcache:state 3 for written (dirty), 1 for CACHE-filled (clean), 0 for
        // untouched; base:allocation one allocated extent; REQ_ONE one descriptor; unaligned edges exact.
        long base = 6L << 20;
        // Writeback would clean the written block at any moment (memory devices are fast): hold it off so the
        // block is still dirty when its status is asked for.
        fixture.runOnLoop(() -> fixture.cacheSet.knobs().find("writeback.default.running").set("false"));
        try (NbdTestClient client = fixture.client().go("default", true, "base:allocation", "blockcache:state")) {
            assertThat(client.write(base, pattern(7, 4096), 0)).isZero();
            assertThat(client.call(0, CMD_CACHE, base + 8192, 4096, null).error()).isZero();
            Reply reply = client.call(0, CMD_BLOCK_STATUS, base + 100, 16384, null);
            assertThat(reply.error()).isZero();
            assertThat(reply.status().get(MetaContext.BASE_ALLOCATION.id())).containsExactly(new Extent(16384, 0));
            assertThat(reply.status().get(MetaContext.BLOCKCACHE_STATE.id())).containsExactly(
                    new Extent(4096 - 100, 3), new Extent(4096, 0), new Extent(4096, 1), new Extent(4096 + 100, 0));
            Reply one = client.call(CMD_FLAG_REQ_ONE, CMD_BLOCK_STATUS, base, 16384, null);
            assertThat(one.status().get(MetaContext.BLOCKCACHE_STATE.id())).containsExactly(new Extent(4096, 3));
            assertThat(client.call(0, CMD_BLOCK_STATUS, NbdFixture.VOLUME_BYTES - 512, 1024, null).error())
                    .isEqualTo(EINVAL);
            assertThat(client.call(0, CMD_BLOCK_STATUS, 0, 0, null).error()).isEqualTo(EINVAL);
        } finally {
            fixture.runOnLoop(() -> fixture.cacheSet.knobs().find("writeback.default.running").set("true"));
        }
        try (NbdTestClient client = fixture.client().go("default", true)) {
            assertThat(client.call(0, CMD_BLOCK_STATUS, 0, 4096, null).error()).isEqualTo(EINVAL);
        }
    }

    @Test
    void exportsAreSeparateVolumes() throws Exception {
        // Proves named exports: a write to "second" is not visible on "default".
        try (NbdTestClient second = fixture.client().go("second", false);
             NbdTestClient first = fixture.client().go("default", false)) {
            byte[] data = pattern(9, 4096);
            assertThat(second.write(14L << 20, data, 0)).isZero();
            assertThat(second.read(14L << 20, 4096)).isEqualTo(data);
            assertThat(first.read(14L << 20, 4096)).isEqualTo(new byte[4096]);
        }
    }
}
