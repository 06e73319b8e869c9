package io.blockcache.interop;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.nbd.NbdProtocol;
import io.blockcache.nbd.NbdTestClient;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Arrays;

/** 4 KiB blocks written and read over NBD on a replication group's member, for the replication tests. */
final class ReplicaBlocks {
    static final int BLOCK = 4096;

    private ReplicaBlocks() {
    }

    /** Fills block {@code block} with {@code value}; an NBD error is an IOException (a refusal, never wrong data). */
    static void write(NbdTestClient client, int block, byte value) throws IOException {
        byte[] data = new byte[BLOCK];
        Arrays.fill(data, value);
        NbdTestClient.Reply reply = client.call(0, NbdProtocol.CMD_WRITE, (long) block * BLOCK, BLOCK, data);
        if (reply.error() != 0) {
            throw new IOException("write of block " + block + ": NBD error " + reply.error());
        }
    }

    /** Block {@code block}'s bytes; the read must succeed. */
    static byte[] read(NbdTestClient client, int block) throws IOException {
        NbdTestClient.Reply reply = client.call(0, NbdProtocol.CMD_READ, (long) block * BLOCK, BLOCK, null);
        assertThat(reply.error()).as("read of block " + block).isZero();
        return reply.data();
    }

    /** A client of {@code member}'s export (it must serve). */
    static NbdTestClient connect(ReplicaProcess member) throws IOException {
        return new NbdTestClient(new InetSocketAddress("127.0.0.1", member.nbdPort)).readTimeoutMs(60_000)
                .go(ReplicaGroup.EXPORT, false);
    }
}
