package io.blockcache.interop;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Three {@link ReplicaProcess} members of one replication group over one NBD backing store (nbdkit's memory plugin),
 * started by the test, on loopback ports of their own; every wait bounded.
 */
final class ReplicaGroup implements AutoCloseable {
    static final String EXPORT = ProcessFuzz.EXPORT;
    static final int MEMBERS = 3;
    /** A new leader serves within this (elections take 2-4 s; a loaded machine, more). */
    static final long LEADER_TIMEOUT_MS = 60_000;
    private static final long POLL_MS = 50;
    /**
     * C1 and the serial collector (starts take half the time); snapshots of the replica every 50 log entries, so that
     * a member that comes back empty catches up from a snapshot, not only from the log.
     */
    private static final Map<String, String> CHILD_ENVIRONMENT = Map.of("JAVA_TOOL_OPTIONS",
            "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -D"
                    + io.blockcache.replication.ReplicaNode.SNAPSHOT_ENTRIES_PROPERTY + "=50" + quietJvm());

    /**
     * What bin/blockcache and the jar's manifest give serve, so that its stderr holds only its own lines: Ratis's
     * shaded Guava and Netty use sun.misc.Unsafe (JDK 23+ warns, JEP 471) and load a native library (JDK 24+ warns).
     */
    private static String quietJvm() {
        return Runtime.version().feature() >= 23
                ? " --sun-misc-unsafe-memory-access=allow --enable-native-access=ALL-UNNAMED" : "";
    }

    final List<ReplicaProcess> members = new ArrayList<>();
    /** The nbdkit backing store, or null over S3. */
    final RemoteNbdServer backing;

    private ReplicaGroup(RemoteNbdServer backing) {
        this.backing = backing;
    }

    /** Starts the backing store and three members in {@code dir}, each with {@code config} lines. */
    static ReplicaGroup start(Path dir, String backingSize, String config) throws IOException, InterruptedException {
        RemoteNbdServer nbdkit = RemoteNbdServer.nbdkit(dir, List.of("memory", backingSize));
        return start(dir, new ReplicaGroup(nbdkit), nbdkit.uri(EXPORT), config, Map.of());
    }

    /**
     * Three members over volume {@code s3Uri} of an S3 server at {@code endpoint} (started by the caller), with
     * {@code environment} (its credentials) and a volume of {@code sizeBytes} when it is created.
     */
    static ReplicaGroup startOnS3(Path dir, String s3Uri, java.net.URI endpoint, Map<String, String> environment,
                                  String size, String config) throws IOException, InterruptedException {
        return start(dir, new ReplicaGroup(null), s3Uri, config, environment, "--s3-endpoint", endpoint.toString(),
                "--backing-size", size);
    }

    private static ReplicaGroup start(Path dir, ReplicaGroup group, String backingUri, String config,
                                      Map<String, String> environment, String... moreArgs)
            throws IOException, InterruptedException {
        try {
            StringBuilder peers = new StringBuilder();
            for (int i = 0; i < MEMBERS; i++) {
                peers.append(i == 0 ? "" : ",").append("n").append(i).append("=127.0.0.1:")
                        .append(RemoteNbdServer.freePort());
            }
            for (int i = 0; i < MEMBERS; i++) {
                Map<String, String> childEnvironment = new java.util.HashMap<>(CHILD_ENVIRONMENT);
                childEnvironment.putAll(environment);
                ReplicaProcess member = ReplicaProcess.of("n" + i, dir.resolve("n" + i), peers.toString(), backingUri,
                        RemoteNbdServer.freePort(), RemoteNbdServer.freePort(), config, childEnvironment, moreArgs);
                group.members.add(member);
                member.start();
            }
            return group;
        } catch (IOException | RuntimeException e) {
            group.close();
            throw e;
        }
    }

    /**
     * Waits for a live member other than {@code not} (null: any) that serves now (its last word is that it serves, not
     * that it stopped); null if none within the bound.
     */
    ReplicaProcess awaitLeader(ReplicaProcess not) throws IOException, InterruptedException {
        long deadlineNs = System.nanoTime() + LEADER_TIMEOUT_MS * 1_000_000;
        while (System.nanoTime() < deadlineNs) {
            for (ReplicaProcess member : members) {
                if (member != not && member.alive() && member.serves()) {
                    return member;
                }
            }
            Thread.sleep(POLL_MS); // polling child processes' logs, bounded by the deadline
        }
        return null;
    }

    /** Waits until every member but {@code leader} is up and follows; the first that does not, or null. */
    ReplicaProcess awaitAllFollow(ReplicaProcess leader) throws IOException, InterruptedException {
        long deadlineNs = System.nanoTime() + LEADER_TIMEOUT_MS * 1_000_000;
        for (ReplicaProcess member : members) {
            while (member != leader && !(member.alive() && member.follows())) {
                if (System.nanoTime() > deadlineNs) {
                    return member;
                }
                Thread.sleep(POLL_MS); // polling a child process's log, bounded by the deadline
            }
        }
        return null;
    }

    /** The last lines of every member's log, for failure messages. */
    String logs() throws IOException {
        StringBuilder text = new StringBuilder();
        for (ReplicaProcess member : members) {
            String log = member.log();
            text.append("\n--- member ").append(member.id).append(" (last lines)\n")
                    .append(log.length() > 3000 ? log.substring(log.length() - 3000) : log);
        }
        return text.toString();
    }

    @Override
    public void close() throws InterruptedException {
        for (ReplicaProcess member : members) {
            member.resume();
            member.killMinusNine();
        }
        if (backing != null) {
            backing.close();
        }
    }
}
