package io.blockcache.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class StatsTableRemoteTest {
    @Test
    void remoteBackingsGetALineEachWithTheirStateAndLocalOnesNone() {
        // Proves `blockcache stats` shows the remote state of NBD and S3 backings from /api/stats' backing[] entries,
        // one line each, and nothing for a local file.
        Map<?, ?> nbd = (Map<?, ?>) JsonReader.parse("{\"name\":\"a\",\"remote\":{\"connected\":false,"
                + "\"state\":\"away: connection refused (reconnecting)\",\"breaks\":2,\"reconnects\":1,"
                + "\"replayLogBytes\":65536,\"requestTimeouts\":3}}");
        Map<?, ?> s3 = (Map<?, ?>) JsonReader.parse("{\"name\":\"b\",\"s3\":{\"puts\":7,\"gets\":5,\"deletes\":2,"
                + "\"failures\":1,\"retries\":6,\"bytesPut\":29360128,\"bytesGot\":20480,\"stagedChunks\":3,"
                + "\"stagedChunksMax\":16,\"leaseRenewals\":4,\"leaseRenewalFailures\":1,\"fenced\":false,"
                + "\"ownership\":\"owned by host-a:/cache.img\"}}");
        Map<?, ?> file = (Map<?, ?>) JsonReader.parse("{\"name\":\"c\",\"errors\":0}");
        StringBuilder out = new StringBuilder();
        StatsTable.remoteBacking(out, nbd);
        StatsTable.remoteBacking(out, s3);
        StatsTable.remoteBacking(out, file);
        assertThat(out.toString().lines()).containsExactly(
                "backing a (nbd): away: connection refused (reconnecting); 2 breaks, 1 reconnects, 3 request timeouts;"
                        + " replay log 64.0 KiB",
                "backing b (s3): owned by host-a:/cache.img; 7 PUTs (28.0 MiB), 5 GETs (20.0 KiB), 2 DELETEs, 6"
                        + " retried, 1 failed; 3 of 16 chunks staged; owner record renewed 4 times, 1 failed");
    }
}
