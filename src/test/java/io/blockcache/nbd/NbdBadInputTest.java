package io.blockcache.nbd;

import static io.blockcache.nbd.NbdProtocol.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.engine.CacheSet;
import io.blockcache.engine.Outcome;
import io.blockcache.loop.Prng;
import io.blockcache.nbd.NbdTestClient.Reply;
import io.blockcache.sim.FaultPlan;
import io.blockcache.volume.Volume;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class NbdBadInputTest {
    private static byte[] pattern(int seed, int bytes) {
        byte[] data = new byte[bytes];
        new Prng(seed).nextBytes(data);
        return data;
    }

    @Test
    void outOfRangeOverflowingAndOversizedRequestsGetTheirErrors() throws Exception {
        // Proves EINVAL for reads past the end, ENOSPC for writes and zeroes past the end, overflowing offsets,
        // lengths over 64 MiB (a WRITE's payload is consumed so the stream stays in sync), unknown commands
        // and flags; structured and simple sessions alike.
        try (NbdFixture fixture = new NbdFixture();
             NbdTestClient simple = fixture.client().go("default", false);
             NbdTestClient structured = fixture.client().go("default", true)) {
            long size = NbdFixture.VOLUME_BYTES;
            for (NbdTestClient client : new NbdTestClient[] {simple, structured}) {
                assertThat(client.call(0, CMD_READ, size - 100, 200, null).error()).isEqualTo(EINVAL);
                assertThat(client.call(0, CMD_WRITE, size - 100, 200, new byte[200]).error()).isEqualTo(ENOSPC);
                assertThat(client.call(0, CMD_WRITE_ZEROES, size, 1, null).error()).isEqualTo(ENOSPC);
                assertThat(client.call(0, CMD_TRIM, size, 512, null).error()).isEqualTo(EINVAL);
                assertThat(client.call(0, CMD_CACHE, size - 1, 2, null).error()).isEqualTo(EINVAL);
                assertThat(client.call(0, CMD_READ, -512, 1024, null).error()).isEqualTo(EINVAL);
                assertThat(client.call(0, CMD_WRITE, Long.MAX_VALUE - 100, 512, new byte[512]).error())
                        .isEqualTo(ENOSPC);
                assertThat(client.call(0, CMD_READ, 0, (64 << 20) + 1, null).error()).isEqualTo(EINVAL);
                assertThat(client.call(0, CMD_WRITE, 0, (64 << 20) + 1, new byte[(64 << 20) + 1]).error())
                        .isEqualTo(EINVAL);
                assertThat(client.call(0, 99, 0, 0, null).error()).isEqualTo(EINVAL);
                assertThat(client.call(CMD_FLAG_REQ_ONE, CMD_READ, 0, 512, null).error()).isEqualTo(EINVAL);
                assertThat(client.call(0x8000, CMD_FLUSH, 0, 0, null).error()).isEqualTo(EINVAL);
                assertThat(client.read(0, 512)).hasSize(512); // still in sync
            }
            Reply detailed = structured.call(0, CMD_READ, size, 1, null);
            assertThat(detailed.message()).contains("outside the export");
            assertThat(simple.call(CMD_FLAG_DF, CMD_READ, 0, 512, null).error()).isEqualTo(EINVAL); // DF needs SR
            // Each is an nbd.request.refused warning naming the client (the NBD server keeps 20 per 10 s).
            assertThat(fixture.events(io.blockcache.log.EventName.NBD_REQUEST_REFUSED)).isNotEmpty()
                    .allSatisfy(event -> assertThat(event.fields()).containsExactly(
                            new io.blockcache.log.LogEvent.Field("peer", "127.0.0.1")));
        }
    }

    @Test
    void framingViolationsAndVanishingClientsEndOnlyTheirConnection() throws Exception {
        // Proves a bad request magic, an absurd WRITE length and truncated frames close just that connection;
        // fio's drop-without-DISC is harmless; nothing half-received reaches the volume; others keep working.
        try (NbdFixture fixture = new NbdFixture();
             NbdTestClient healthy = fixture.client().go("default", true)) {
            byte[] before = healthy.read(1 << 20, 4096);
            try (NbdTestClient client = fixture.client().go("default", false)) {
                client.out.write(new byte[28]); // magic 0
                client.out.flush();
                assertThat(client.serverClosed()).isTrue();
            }
            try (NbdTestClient client = fixture.client().go("default", false)) {
                client.send(0, CMD_WRITE, 0, 0xFFFF_FFF0L, null); // 4 GiB claimed: not worth consuming
                assertThat(client.serverClosed()).isTrue();
            }
            try (NbdTestClient client = fixture.client().go("default", false)) {
                client.out.write(ByteBuffer.allocate(12).putInt(REQUEST_MAGIC).putInt(CMD_WRITE).putInt(0).array());
            } // truncated header, then gone
            try (NbdTestClient client = fixture.client().go("default", false)) {
                client.send(0, CMD_WRITE, 1 << 20, 4096, new byte[1000]); // payload cut short, then gone
            }
            try (NbdTestClient client = fixture.client().go("default", true)) {
                assertThat(client.read(0, 512)).hasSize(512); // fio: used, then dropped without DISC
            }
            assertThat(fixture.server.awaitIdle(Duration.ofSeconds(10))).isTrue();
            assertThat(healthy.read(1 << 20, 4096)).isEqualTo(before); // the truncated write never landed
            assertThat(fixture.server.protocolErrorsTotal()).isEqualTo(2);
            // The bad magic and the absurd length, served clients both: nbd.protocol_error, not handshake.failed.
            assertThat(fixture.events(io.blockcache.log.EventName.NBD_PROTOCOL_ERROR)).hasSize(2);
            assertThat(fixture.events(io.blockcache.log.EventName.NBD_HANDSHAKE_FAILED)).isEmpty();
        }
    }

    @Test
    void aClientVanishingWithRequestsInFlightHurtsNoOne() throws Exception {
        // Proves requests in flight when their client disappears still complete (writes land), their replies
        // are dropped, the connection is cleaned up, and other connections are not held up.
        try (NbdFixture fixture = new NbdFixture();
             NbdTestClient other = fixture.client().go("default", true)) {
            byte[] data = pattern(4, 8192);
            NbdTestClient leaving = fixture.client().go("default", true);
            fixture.backing.closeGate();
            leaving.send(0, CMD_READ, 5L << 20, 65536, null); // parked at the backing device
            assertThat(fixture.backing.awaitParked(1)).isTrue();
            long write = leaving.send(0, CMD_WRITE, 7L << 20, data.length, data);
            long flush = leaving.send(0, CMD_FLUSH, 0, 0, null);
            // Both answered (in either order): the write was handed over and has landed.
            assertThat(java.util.List.of(leaving.readReply().handle(), leaving.readReply().handle()))
                    .containsExactlyInAnyOrder(write, flush);
            leaving.close();
            assertThat(other.write(8L << 20, data, 0)).isZero(); // not held up by the parked read
            assertThat(fixture.server.connectionsOpen()).isEqualTo(2);
            fixture.backing.openGate();
            assertThat(fixture.server.awaitIdle(Duration.ofSeconds(10))).isTrue();
            assertThat(other.read(7L << 20, data.length)).isEqualTo(data);
            other.disconnect();
            assertThat(other.serverClosed()).isTrue();
        }
    }

    @Test
    void ioErrorsBecomeEioAndAFailedFlushStaysFailed() throws Exception {
        // Proves EIO for volume I/O errors, and that after a failed flush, FLUSH and FUA writes keep failing
        // even once the device works again (docs/ARCHITECTURE.md §5 item 5), while plain reads still work.
        try (NbdFixture fixture = new NbdFixture();
             NbdTestClient client = fixture.client().go("default", true)) {
            byte[] data = pattern(6, 4096);
            assertThat(client.write(0, data, 0)).isZero();
            fixture.runOnLoop(() -> fixture.cacheDevice.failNext(1_000_000));
            assertThat(client.write(8192, data, 0)).isEqualTo(EIO);
            assertThat(client.call(0, CMD_FLUSH, 0, 0, null).error()).isEqualTo(EIO);
            fixture.runOnLoop(() -> fixture.cacheDevice.setPlan(FaultPlan.none()));
            assertThat(client.call(0, CMD_FLUSH, 0, 0, null).error()).isEqualTo(EIO);
            assertThat(client.write(16384, data, CMD_FLAG_FUA)).isEqualTo(EIO);
            assertThat(client.read(0, 4096)).isEqualTo(data);
        }
    }

    @Test
    void aFlushOnOneConnectionCoversWritesAnsweredOnAnother() throws Exception {
        // Proves the multi-conn guarantee: a write acknowledged on connection A and a FLUSH on connection B make
        // the write durable: a cache set reopened from the devices (the journal replayed) holds it.
        try (NbdFixture fixture = new NbdFixture();
             NbdTestClient a = fixture.client().go("default", false);
             NbdTestClient b = fixture.client().go("default", false)) {
            assertThat(a.transmissionFlags & FLAG_CAN_MULTI_CONN).isEqualTo(FLAG_CAN_MULTI_CONN);
            byte[] data = pattern(8, 16384);
            assertThat(a.write(3L << 20, data, 0)).isZero();
            assertThat(b.call(0, CMD_FLUSH, 0, 0, null).error()).isZero();
            fixture.server.stopAccepting();
            CacheSet reopened = fixture.<Outcome<CacheSet>>onLoop(done -> CacheSet.open(fixture.loop,
                    fixture.cacheDevice, fixture.backings, fixture.options, done)).orThrow();
            Volume volume = reopened.volume("default");
            ByteBuffer buffer = ByteBuffer.allocate(data.length);
            Consumer<Consumer<io.blockcache.device.IoResult>> read = done -> volume.read(3L << 20, buffer,
                    done::accept);
            assertThat(fixture.onLoop(read).ok()).isTrue();
            assertThat(buffer.array()).isEqualTo(data);
            assertThat(volume.index().extents().dirtySectors()).isGreaterThanOrEqualTo(32);
        }
    }

    @Test
    void gracefulShutdownAnswersInFlightRequestsAndRefusesNewConnections() throws Exception {
        // Proves stopAccepting / awaitIdle / close: held requests are answered before connections close, and
        // no new connection is accepted after stopAccepting.
        NbdFixture fixture = new NbdFixture();
        try (NbdTestClient client = fixture.client().go("default", true)) {
            fixture.backing.closeGate();
            long held = client.send(0, CMD_READ, 11L << 20, 4096, null);
            assertThat(fixture.backing.awaitParked(1)).isTrue();
            fixture.server.stopAccepting();
            assertThat(fixture.server.awaitIdle(Duration.ZERO)).isFalse();
            fixture.backing.openGate();
            assertThat(fixture.server.awaitIdle(Duration.ofSeconds(10))).isTrue();
            Reply reply = client.readReply();
            assertThat(reply.handle()).isEqualTo(held);
            assertThat(reply.error()).isZero();
            boolean refused;
            try (NbdTestClient late = fixture.client()) {
                refused = late.serverClosed();
            } catch (java.io.IOException e) {
                refused = true;
            }
            assertThat(refused).isTrue();
            fixture.server.close();
            assertThat(client.serverClosed()).isTrue();
            assertThat(fixture.server.connectionsOpen()).isZero();
        } finally {
            fixture.close();
        }
    }
}
