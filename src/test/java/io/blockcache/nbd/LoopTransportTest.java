package io.blockcache.nbd;

import static io.blockcache.nbd.NbdProtocol.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.nbd.NbdTestClient.Reply;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The transmission phase on the loop thread ({@link LoopTransport}): plain-TCP connections take it, and what the
 * non-blocking socket does not take at once still reaches the client whole.
 */
class LoopTransportTest {
    private static final int MIB = 1 << 20;
    private static final int READS = 8;

    @Test
    void aPlainConnectionIsServedOnTheLoop() throws Exception {
        // Proves the fast path is the one taken: after the handshake the connection belongs to the loop, which
        // answers pipelined requests, each by its handle.
        try (NbdFixture fixture = new NbdFixture(); NbdTestClient client = fixture.client().go("default", false)) {
            assertThat(client.write(0, filled(8192, 7), 0)).isZero();
            long first = client.send(0, CMD_READ, 0, 4096, null);
            long second = client.send(0, CMD_READ, 4096, 4096, null);
            Map<Long, Reply> replies = new HashMap<>();
            for (int i = 0; i < 2; i++) {
                Reply reply = client.readReply();
                replies.put(reply.handle(), reply);
            }
            assertThat(replies.get(first).data()).isEqualTo(Arrays.copyOfRange(filled(8192, 7), 0, 4096));
            assertThat(replies.get(second).data()).isEqualTo(Arrays.copyOfRange(filled(8192, 7), 4096, 8192));
            assertThat(fixture.server.connectionsOnLoop()).isEqualTo(1);
        }
    }

    @Test
    void repliesLargerThanTheSocketTakesAtOnceArriveWhole() throws Exception {
        // Proves partial writes are finished when the socket drains: a client with a 16 KiB receive buffer asks for
        // 8 MiB of READs before it reads a byte, so the loop's non-blocking writes stop part-way through replies
        // many times; every reply still arrives complete, with the data written before.
        try (NbdFixture fixture = new NbdFixture()) {
            try (NbdTestClient writer = fixture.client().go("default", false)) {
                for (int i = 0; i < READS; i++) {
                    assertThat(writer.write((long) i * MIB, filled(MIB, i + 1), 0)).isZero();
                }
            }
            try (NbdTestClient slow = new NbdTestClient(fixture.server.address(), null, 16 << 10)) {
                slow.go("default", false);
                Map<Long, Integer> regionByHandle = new HashMap<>();
                for (int i = 0; i < READS; i++) {
                    regionByHandle.put(slow.send(0, CMD_READ, (long) i * MIB, MIB, null), i);
                }
                for (int i = 0; i < READS; i++) {
                    Reply reply = slow.readReply();
                    int region = regionByHandle.remove(reply.handle());
                    assertThat(reply.error()).isZero();
                    assertThat(Arrays.equals(reply.data(), filled(MIB, region + 1)))
                            .as("region %d arrived whole", region).isTrue();
                }
                assertThat(regionByHandle).isEmpty();
            }
        }
    }

    private static byte[] filled(int lengthBytes, int seed) {
        byte[] data = new byte[lengthBytes];
        for (int i = 0; i < lengthBytes; i++) {
            data[i] = (byte) (seed * 31 + i / 512);
        }
        return data;
    }
}
