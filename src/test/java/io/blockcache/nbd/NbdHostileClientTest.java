package io.blockcache.nbd;

import static io.blockcache.nbd.NbdProtocol.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.loop.Prng;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.function.BooleanSupplier;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * The server under clients that try to exhaust it: timeouts, connection limits, the buffer
 * budget, allocation failures and 64 MiB requests. Real time with short timeouts; every wait is for an
 * observable event (a closed socket, a counter) and bounded.
 */
class NbdHostileClientTest {
    /** The timeout under test where only the hostile client must trip it. */
    private static final Duration SHORT = Duration.ofMillis(300);
    /**
     * The timeout under test where a well-behaved client of the same test must not trip it: long enough for its
     * handshake or its next request on a loaded machine.
     */
    private static final Duration SPARING = Duration.ofSeconds(2);
    private static final Duration LONG = Duration.ofSeconds(60);
    private static final Duration WAIT_MAX = Duration.ofSeconds(20);

    @Test
    void aSilentSocketIsClosedAtTheHandshakeTimeoutWhileAServedClientIsNot() throws Exception {
        // Proves a client that never finishes its handshake loses its socket after the handshake timeout (counted,
        // logged), and a client that finished its handshake at the same moment is still served afterwards.
        NbdLimits limits = NbdLimits.DEFAULTS.withTimeouts(SPARING, Duration.ZERO, LONG);
        try (NbdFixture fixture = new NbdFixture(NbdFixture.VOLUME_BYTES, limits, new PayloadBuffers());
             NbdTestClient silent = fixture.client();
             NbdTestClient served = fixture.client().go("default", false)) {
            silent.in.readNBytes(18); // the greeting; then nothing
            assertThat(silent.serverClosed()).isTrue();
            assertThat(fixture.server.stats().handshakeTimeouts()).isEqualTo(1);
            assertThat(fixture.log).anyMatch(line -> line.contains("handshake not finished within 2000 ms"));
            assertThat(served.write(0, new byte[512], 0)).isZero();
            assertThat(fixture.server.stats().idleTimeouts()).isZero();
        }
    }

    @Test
    void anIdleConnectionIsClosedButOneWaitingForItsReplyIsNot() throws Exception {
        // Proves the idle timeout closes a connection with nothing in flight, and spares one whose request is
        // still on the volume (held at the backing device) for at least as long.
        NbdLimits limits = NbdLimits.DEFAULTS.withTimeouts(LONG, SPARING, LONG);
        try (NbdFixture fixture = new NbdFixture(NbdFixture.VOLUME_BYTES, limits, new PayloadBuffers());
             NbdTestClient idle = fixture.client().go("default", false);
             NbdTestClient waiting = fixture.client().go("default", false)) {
            fixture.backing.closeGate();
            long handle = waiting.send(0, CMD_READ, 1 << 20, 4096, null);
            assertThat(fixture.backing.awaitParked(1)).isTrue();
            assertThat(idle.serverClosed()).isTrue(); // its quiet time started no later than the other's
            assertThat(fixture.server.stats().idleTimeouts()).isEqualTo(1);
            fixture.backing.openGate();
            NbdTestClient.Reply reply = waiting.readReply();
            assertThat(reply.handle()).isEqualTo(handle);
            assertThat(reply.error()).isZero();
            assertThat(fixture.log).anyMatch(line -> line.contains("idle for 2000 ms"));
        }
    }

    @Test
    void aClientThatStopsReadingRepliesIsCutOffAndItsBudgetComesBack() throws Exception {
        // Proves a client that sends READs and never reads the replies is closed after the reply stall timeout,
        // and every byte of buffer budget its requests held is free again.
        NbdLimits limits = NbdLimits.DEFAULTS.withTimeouts(LONG, Duration.ZERO, SHORT);
        try (NbdFixture fixture = new NbdFixture(NbdFixture.VOLUME_BYTES, limits, new PayloadBuffers());
             NbdTestClient stalled = new NbdTestClient(fixture.server.address(), null, 16 << 10)) {
            stalled.go("default", false);
            int readBytes = (1 << 20) - Connection.ALIGNMENT_SLACK_BYTES; // exactly a 1 MiB buffer each
            for (int i = 0; i < Connection.REQUESTS_IN_FLIGHT_MAX; i++) {
                stalled.send(0, CMD_READ, (long) (i % 15) << 20, readBytes, null); // 64 MiB of replies
            }
            awaitTrue(() -> fixture.server.stats().replyStallTimeouts() == 1, "the reply stall timeout");
            // Wait for the connection to have wound down, not merely for no request in flight: its reader may still
            // be admitting a request whose buffer it has taken but not yet handed on (seen once in a loaded run:
            // idle, with 1 MiB + 4 KiB still taken). A wound-down connection has every request permit back, so
            // every reply was written or dropped and gave its budget back.
            awaitTrue(() -> fixture.server.connectionsOpen() == 0, "the stalled connection to wind down");
            assertThat(fixture.server.awaitIdle(WAIT_MAX)).isTrue();
            NbdServerStats stats = fixture.server.stats();
            assertThat(stats.bufferBytesInUse()).isZero();
            assertThat(stats.bufferBytesInUsePeak()).isGreaterThanOrEqualTo(8L << 20).isLessThanOrEqualTo(
                    stats.bufferBytesMax());
            try (NbdTestClient other = fixture.client().go("default", false)) {
                assertThat(other.read(0, 4096)).hasSize(4096);
            }
        }
    }

    @Test
    void connectionsAreLimitedPerAddressAndInTotal() throws Exception {
        // Proves a third connection from one address and a fourth in all are closed at accept (counted, logged),
        // the ones admitted are served, and a slot freed by a disconnect is taken again.
        NbdLimits limits = NbdLimits.DEFAULTS.withConnections(3, 2);
        InetAddress first = InetAddress.getByName("127.0.0.1");
        InetAddress second = InetAddress.getByName("127.0.0.2");
        InetAddress third = InetAddress.getByName("127.0.0.3");
        try (NbdFixture fixture = new NbdFixture(NbdFixture.VOLUME_BYTES, limits, new PayloadBuffers());
             NbdTestClient a = client(fixture, first).go("default", false);
             NbdTestClient b = client(fixture, first).go("default", false);
             NbdTestClient refusedByAddress = client(fixture, first);
             NbdTestClient c = client(fixture, second).go("default", false);
             NbdTestClient refusedInTotal = client(fixture, third)) {
            assertThat(refusedByAddress.serverClosed()).isTrue();
            assertThat(refusedInTotal.serverClosed()).isTrue();
            NbdServerStats stats = fixture.server.stats();
            assertThat(stats.refusedAddressMax()).isEqualTo(1);
            assertThat(stats.refusedConnectionsMax()).isEqualTo(1);
            assertThat(stats.connectionsOpen()).isEqualTo(3);
            assertThat(fixture.log).anyMatch(line -> line.startsWith("nbd: 127.0.0.1: refused, 2 connections"));
            assertThat(fixture.events(io.blockcache.log.EventName.NBD_REFUSED).stream()
                    .map(event -> event.fields().get(0).value())).containsExactlyInAnyOrder("127.0.0.1", "127.0.0.3");
            for (NbdTestClient client : new NbdTestClient[] {a, b, c}) {
                assertThat(client.read(0, 512)).hasSize(512);
            }
            a.disconnect();
            awaitTrue(() -> fixture.server.connectionsOpen() == 2, "the disconnected slot to free");
            try (NbdTestClient again = client(fixture, first).go("default", false)) {
                assertThat(again.read(0, 512)).hasSize(512);
            }
        }
    }

    @Test
    void aRequestBeyondTheBufferBudgetWaitsAndThenSucceeds() throws Exception {
        // Proves a request that would exceed the server-wide buffer budget waits (counted) while another
        // connection's 64 MiB READ holds it, then completes; the budget's peak never passes its maximum.
        long volumeBytes = 80L << 20;
        NbdLimits limits = NbdLimits.DEFAULTS.withBufferBytesMax(NbdLimits.BUFFER_BYTES_MIN);
        try (NbdFixture fixture = new NbdFixture(volumeBytes, limits, new PayloadBuffers());
             NbdTestClient large = fixture.client().go("default", true);
             NbdTestClient small = fixture.client().go("default", false)) {
            fixture.backing.closeGate();
            long largeHandle = large.send(0, CMD_READ, 0, Connection.REQUEST_BYTES_MAX, null);
            assertThat(fixture.backing.awaitParked(1)).isTrue();
            long smallHandle = small.send(0, CMD_READ, 70L << 20, 4096, null);
            awaitTrue(() -> fixture.server.stats().bufferWaits() == 1, "the small read to wait for budget");
            assertThat(fixture.server.stats().bufferBytesInUse()).isEqualTo(NbdLimits.BUFFER_BYTES_MIN);
            fixture.backing.openGate();
            NbdTestClient.Reply largeReply = large.readReply();
            assertThat(largeReply.handle()).isEqualTo(largeHandle);
            assertThat(largeReply.error()).isZero();
            assertThat(largeReply.data()).hasSize(Connection.REQUEST_BYTES_MAX);
            NbdTestClient.Reply smallReply = small.readReply();
            assertThat(smallReply.handle()).isEqualTo(smallHandle);
            assertThat(smallReply.error()).isZero();
            assertThat(fixture.server.awaitIdle(WAIT_MAX)).isTrue();
            NbdServerStats stats = fixture.server.stats();
            assertThat(stats.bufferBytesInUse()).isZero();
            assertThat(stats.bufferBytesInUsePeak()).isEqualTo(stats.bufferBytesMax());
        }
    }

    @Test
    void requestsOf64MiBAreServedAlignedOrNot() throws Exception {
        // Proves READ and WRITE of exactly 64 MiB work, at an odd offset too (the covering sectors of such a READ
        // are one sector more than the volume takes at once), and one byte more is EINVAL.
        long volumeBytes = 80L << 20;
        try (NbdFixture fixture = new NbdFixture(volumeBytes, NbdLimits.DEFAULTS, new PayloadBuffers());
             NbdTestClient client = fixture.client().go("default", true)) {
            byte[] data = new byte[Connection.REQUEST_BYTES_MAX];
            new Prng(12).nextBytes(data);
            assertThat(client.write(1, data, 0)).isZero();
            assertThat(client.read(1, data.length)).isEqualTo(data);
            byte[] shifted = client.read(511, data.length);
            assertThat(Arrays.copyOfRange(shifted, 0, data.length - 510))
                    .isEqualTo(Arrays.copyOfRange(data, 510, data.length));
            assertThat(client.call(0, CMD_READ, 0, Connection.REQUEST_BYTES_MAX + 1L, null).error())
                    .isEqualTo(EINVAL);
        }
    }

    @Test
    void anAllocationFailureFailsOnlyThatRequestAndWritesNothing() throws Exception {
        // Proves that when the JVM cannot allocate a request's buffer the request gets ENOMEM (its payload
        // consumed, nothing written), the connection stays in sync and the others and the loop go on.
        PayloadBuffers failingAboveOneMiB = new PayloadBuffers(capacity -> {
            if (capacity > (1 << 20) + PayloadBuffers.ALIGNMENT_BYTES) {
                throw new OutOfMemoryError("Cannot reserve " + capacity + " bytes of direct buffer memory (test)");
            }
            return ByteBuffer.allocateDirect(capacity);
        });
        try (NbdFixture fixture = new NbdFixture(NbdFixture.VOLUME_BYTES, NbdLimits.DEFAULTS, failingAboveOneMiB);
             NbdTestClient client = fixture.client().go("default", true);
             NbdTestClient other = fixture.client().go("default", false)) {
            byte[] large = new byte[2 << 20];
            Arrays.fill(large, (byte) 0x5a);
            NbdTestClient.Reply write = client.call(0, CMD_WRITE, 0, large.length, large);
            assertThat(write.error()).isEqualTo(ENOMEM);
            assertThat(write.message()).contains("short of buffer memory");
            assertThat(client.call(0, CMD_READ, 0, large.length, null).error()).isEqualTo(ENOMEM);
            assertThat(client.read(0, 512 << 10)).containsOnly((byte) 0); // in sync, and nothing was written
            assertThat(other.write(4096, new byte[4096], 0)).isZero();
            assertThat(fixture.loop.failure()).isNull();
            assertThat(fixture.server.stats().allocationFailures()).isEqualTo(2);
            assertThat(fixture.log).anyMatch(line -> line.contains("request answered ENOMEM"));
        }
    }

    private static NbdTestClient client(NbdFixture fixture, InetAddress from) throws java.io.IOException {
        return new NbdTestClient(fixture.server.address(), from, 0);
    }

    /** Waits (bounded) until {@code condition} holds, polling every millisecond. */
    static void awaitTrue(BooleanSupplier condition, String what) {
        long deadlineNs = System.nanoTime() + WAIT_MAX.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadlineNs) {
                throw new AssertionError("waited " + WAIT_MAX.toSeconds() + " s for " + what);
            }
            LockSupport.parkNanos(1_000_000L);
        }
    }
}
