package io.blockcache.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code blockcache cluster status} against the members of a running replication group (docs/SCALE.md). */
class ClusterStatusTest {
    @TempDir
    Path dir;

    @Test
    void everyMemberSaysWhoLeadsAndTheLeaderSaysWhoIsCaughtUp() throws Exception {
        // Proves: a follower's admin address answers cluster status (and names the leader on other paths), the
        // leader's answers with each follower's catch-up, and --json gives the API's object.
        try (ReplicaGroup group = ReplicaGroup.start(dir, "16M", "")) {
            ReplicaProcess leader = group.awaitLeader(null);
            assertThat(leader).as("a leader" + group.logs()).isNotNull();
            assertThat(group.awaitAllFollow(leader)).as("all follow" + group.logs()).isNull();
            ReplicaProcess follower = group.members.stream().filter(m -> m != leader).findFirst().orElseThrow();

            ExternalTool.Run fromFollower = CliProcess.run(dir, "cluster", "status", "--admin",
                    "127.0.0.1:" + follower.adminPort);
            assertThat(fromFollower.exitCode()).as(fromFollower.describe()).isZero();
            assertThat(fromFollower.out()).contains("member " + follower.id + ": follower")
                    .contains("leader " + leader.id).contains("(this member)");

            ExternalTool.Run fromLeader = CliProcess.run(dir, "cluster", "status", "--admin",
                    "127.0.0.1:" + leader.adminPort);
            assertThat(fromLeader.exitCode()).as(fromLeader.describe()).isZero();
            assertThat(fromLeader.out()).contains("member " + leader.id + ": leader, serving")
                    .contains(follower.id).containsPattern("caught up|entries behind");

            ExternalTool.Run json = CliProcess.run(dir, "cluster", "status", "--json", "--admin",
                    "127.0.0.1:" + follower.adminPort);
            assertThat(json.out()).contains("\"leader\":\"" + leader.id + "\"", "\"members\":[");

            ExternalTool.Run stats = CliProcess.run(dir, "stats", "--admin", "127.0.0.1:" + follower.adminPort);
            assertThat(stats.exitCode()).isNotZero();
            assertThat(stats.err() + stats.out()).contains("member " + leader.id + " serves the volumes");

            // A planned move: the lead, and serving, go to the follower; the old leader stops serving.
            ExternalTool.Run unknown = CliProcess.run(dir, "cluster", "transfer-leader", "nobody", "--admin",
                    "127.0.0.1:" + leader.adminPort);
            assertThat(unknown.exitCode()).isNotZero();
            assertThat(unknown.err() + unknown.out()).contains("no member nobody in the group");
            ExternalTool.Run moved = CliProcess.run(dir, "cluster", "transfer-leader", follower.id, "--admin",
                    "127.0.0.1:" + leader.adminPort);
            assertThat(moved.exitCode()).as(moved.describe()).isZero();
            assertThat(group.awaitLeader(leader)).as("the follower serves" + group.logs()).isSameAs(follower);
            assertThat(leader.log()).containsPattern("no longer leads[^\n]*; stops serving");
        }
    }
}
