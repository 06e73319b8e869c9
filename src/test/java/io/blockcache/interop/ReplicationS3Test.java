package io.blockcache.interop;

import static io.blockcache.interop.ReplicaBlocks.connect;
import static io.blockcache.interop.ReplicaBlocks.read;
import static io.blockcache.interop.ReplicaBlocks.write;
import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.bench.S3ProxyServer;
import io.blockcache.nbd.NbdProtocol;
import io.blockcache.nbd.NbdTestClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A replication group over one S3 volume (S3Proxy, started by the test): failover takes the owner record over. */
class ReplicationS3Test {
    private static final String BUCKET = "replicated";

    @TempDir
    Path dir;

    @Test
    void eachNewLeaderTakesTheVolumeOverAndServesWhatWasAcknowledged() throws Exception {
        // Proves, over S3: after the leader is killed with its data directory deleted, another member takes the
        // volume's owner record over (no operator, no --take-over) and serves the acknowledged write; and again after
        // that member is killed in turn, while writeback to the bucket ran in between.
        try (S3ProxyServer proxy = S3ProxyServer.start(dir)) {
            proxy.createBucket(BUCKET);
            try (ReplicaGroup group = ReplicaGroup.startOnS3(dir, "s3://" + BUCKET + "/vol", proxy.endpoint(),
                    proxy.environment(), "16M", "")) {
                ReplicaProcess first = group.awaitLeader(null);
                assertThat(first).as("a first leader" + group.logs()).isNotNull();
                assertThat(group.awaitAllFollow(first)).as("all follow" + group.logs()).isNull();
                try (NbdTestClient client = connect(first)) {
                    write(client, 0, (byte) 0xA1);
                    assertThat(client.call(0, NbdProtocol.CMD_FLUSH, 0, 0, null).error()).isZero();
                }
                first.killMinusNine();
                deleteTree(first.dataDir);
                ReplicaProcess second = group.awaitLeader(first);
                assertThat(second).as("a second leader" + group.logs()).isNotNull();
                first.start();
                try (NbdTestClient client = connect(second)) {
                    assertThat(read(client, 0)).containsOnly((byte) 0xA1);
                    write(client, 1, (byte) 0xB2);
                    assertThat(client.call(0, NbdProtocol.CMD_FLUSH, 0, 0, null).error()).isZero();
                }
                assertThat(group.awaitAllFollow(second)).as("the first rejoined" + group.logs()).isNull();
                second.killMinusNine();
                ReplicaProcess third = group.awaitLeader(second);
                assertThat(third).as("a third leader" + group.logs()).isNotNull();
                try (NbdTestClient client = connect(third)) {
                    assertThat(read(client, 0)).containsOnly((byte) 0xA1);
                    assertThat(read(client, 1)).containsOnly((byte) 0xB2);
                }
                assertThat(third.log()).contains("took over");
            }
        }
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
