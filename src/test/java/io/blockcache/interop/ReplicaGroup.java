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
    private static final Map<String, String> CHILD_ENVIRONMENT =
            Map.of("JAVA_TOOL_OPTIONS", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC");

    final List<ReplicaProcess> members = new ArrayList<>();
    final RemoteNbdServer backing;

    private ReplicaGroup(RemoteNbdServer backing) {
        this.backing = backing;
    }

    /** Starts the backing store and three members in {@code dir}, each with {@code config} lines. */
    static ReplicaGroup start(Path dir, String backingSize, String config) throws IOException, InterruptedException {
        ReplicaGroup group = new ReplicaGroup(RemoteNbdServer.nbdkit(dir, List.of("memory", backingSize)));
        try {
            StringBuilder peers = new StringBuilder();
            for (int i = 0; i < MEMBERS; i++) {
                peers.append(i == 0 ? "" : ",").append("n").append(i).append("=127.0.0.1:")
                        .append(RemoteNbdServer.freePort());
            }
            for (int i = 0; i < MEMBERS; i++) {
                ReplicaProcess member = ReplicaProcess.of("n" + i, dir.resolve("n" + i), peers.toString(),
                        group.backing.uri(EXPORT), RemoteNbdServer.freePort(), RemoteNbdServer.freePort(), config,
                        CHILD_ENVIRONMENT);
                group.members.add(member);
                member.start();
            }
            return group;
        } catch (IOException | RuntimeException e) {
            group.close();
            throw e;
        }
    }

    /** Waits for a live member that serves in a term after {@code afterTerm}; null if none within the bound. */
    ReplicaProcess awaitLeader(long afterTerm) throws IOException, InterruptedException {
        long deadlineNs = System.nanoTime() + LEADER_TIMEOUT_MS * 1_000_000;
        while (System.nanoTime() < deadlineNs) {
            for (ReplicaProcess member : members) {
                if (member.alive() && member.servingTerm() > afterTerm) {
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
        backing.close();
    }
}
