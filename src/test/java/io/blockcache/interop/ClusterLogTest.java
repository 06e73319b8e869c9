package io.blockcache.interop;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A replication group's members log like a single serve: {@code --log-format json} holds for them too. */
class ClusterLogTest {
    /** What the JVM itself prints on stderr before serve's main runs: the harness's options (ReplicaGroup). */
    private static final List<String> JVM_LINES = List.of("Picked up JAVA_TOOL_OPTIONS:");

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void everyMembersStderrIsJsonLinesWithTheClusterEvents() throws Exception {
        // Proves ClusterServe honours --log-format json (it printed plain "blockcache serve: ..." lines): each of three
        // members writes only JSON objects with a level and an event (Ratis's and gRPC's own logging included: nothing
        // unformatted), the leader cluster.serving, the others cluster.following; so do the two left after the
        // leader is killed, while one of them takes over, and when they are stopped. Ratis's warnings about the killed
        // leader are lib.warning events naming their logger (they vanished through slf4j-nop before 2026-12-07).
        try (ReplicaGroup group = ReplicaGroup.start(dir, "16M", "log-format=json\n")) {
            ReplicaProcess leader = group.awaitLeader(null);
            assertThat(leader).as("a leader" + group.logs()).isNotNull();
            assertThat(group.awaitAllFollow(leader)).as("all follow" + group.logs()).isNull();
            // A member gone: the others' Raft and gRPC retry their calls to it, which is when a library logs.
            leader.killMinusNine();
            ReplicaProcess next = group.awaitLeader(leader);
            assertThat(next).as("a new leader" + group.logs()).isNotNull();
            for (ReplicaProcess member : group.members) {
                if (member != leader) {
                    member.stop(); // SIGTERM: the clean stop's lines too
                }
            }
            List<Map<?, ?>> libraryEvents = new ArrayList<>();
            for (ReplicaProcess member : group.members) {
                List<String> events = new ArrayList<>();
                for (String line : member.log().lines().toList()) {
                    if (JVM_LINES.stream().anyMatch(line::startsWith)) {
                        continue;
                    }
                    assertThat(line).as(member.id + ": a JSON object, in\n" + member.log()).startsWith("{")
                            .endsWith("}");
                    Map<?, ?> event = JSON.readValue(line, Map.class);
                    assertThat(String.valueOf(event.get("level"))).as(line).isIn("error", "warning", "info");
                    events.add(String.valueOf(event.get("event")));
                    if (String.valueOf(event.get("event")).startsWith("lib.")) {
                        libraryEvents.add(event);
                    }
                }
                assertThat(events).as(member.id).contains("cluster.started");
                assertThat(events).as(member.id).contains(member == leader || member == next ? "cluster.serving"
                        : "cluster.following");
                if (member != leader) {
                    assertThat(events).as(member.id).contains("serve.stopped");
                }
            }
            // Ratis's warnings about the killed leader reach the log through serve's SLF4J provider (cli.LibraryLog).
            assertThat(libraryEvents).as("lib.warning/lib.error of Ratis" + group.logs())
                    .anySatisfy(event -> assertThat(String.valueOf(event.get("logger")))
                            .startsWith("org.apache.ratis"));
        }
    }
}
