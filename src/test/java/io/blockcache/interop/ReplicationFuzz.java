package io.blockcache.interop;

import io.blockcache.device.BlockDevice;
import io.blockcache.nbd.NbdProtocol;
import io.blockcache.nbd.NbdTestClient;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

/**
 * The process fuzz for a replication group (docs/SCALE.md "Replication", docs/TESTING.md): three {@code serve}
 * members over one NBD backing store (nbdkit's memory plugin), the seeded random workload of the process fuzz
 * ({@link ProcessFuzzWorker}s, judged by {@link ProcessFuzzModel}) on whichever member leads, and, each round, a
 * SIGKILL of the leader at a random count of completed requests — sometimes with its data directory (cache, log,
 * replica) deleted too, a lost machine. After each failover the whole volume is read from the new leader and checked:
 * every write acknowledged by a FLUSH or FUA reads back, and no sector holds bytes never written to it. The killed
 * member then restarts and must rejoin before the next round.
 *
 * <p>Thread rule: one thread runs a fuzz; it starts and joins its workers. Every wait is bounded.
 */
final class ReplicationFuzz {
    static final String EXPORT = ProcessFuzz.EXPORT;
    static final int MEMBERS = 3;
    static final int WORKERS = 2;
    static final int KILL_AFTER_OPERATIONS_MIN = 20;
    static final int KILL_AFTER_OPERATIONS_SPREAD = 150;
    /** A new leader serves within this after the old one died (elections take 1-2 s; a loaded machine, more). */
    static final long FAILOVER_TIMEOUT_MS = 60_000;
    static final long SEGMENT_TIMEOUT_MS = 60_000;
    static final long WORKER_JOIN_MS = 30_000;
    private static final long POLL_MS = 50;
    private static final int NBD_REPLY_TIMEOUT_MS = 60_000;
    private static final int READ_BACK_BYTES = 1 << 20;
    private static final Map<String, String> CHILD_ENVIRONMENT =
            Map.of("JAVA_TOOL_OPTIONS", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC");

    private final long seed;
    private final Path dir;
    private final ProcessFuzzCounters counters = new ProcessFuzzCounters();
    private final SplittableRandom random;
    private final List<ReplicaProcess> members = new ArrayList<>();
    private ProcessFuzzModel model;
    private String where = "start";
    private long failoverMsMax;
    private long failoverMsTotal;
    private int failovers;
    private int machinesLost;

    ReplicationFuzz(long seed, Path dir) {
        this.seed = seed;
        this.dir = dir;
        this.random = new SplittableRandom(seed);
    }

    ProcessFuzzCounters counters() {
        return counters;
    }

    long durableWrittenSectorsChecked() {
        return model == null ? 0 : model.durableWrittenSectorsChecked();
    }

    int machinesLost() {
        return machinesLost;
    }

    String failoverSummary() {
        return failovers + " failovers, kill to serving: mean " + (failovers == 0 ? 0 : failoverMsTotal / failovers)
                + " ms, max " + failoverMsMax + " ms";
    }

    /** Runs {@code rounds} leader kills, each followed by a whole-volume check on the new leader. */
    void run(int rounds) throws Exception {
        try (RemoteNbdServer backing = RemoteNbdServer.nbdkit(dir, List.of("memory", "16M"))) {
            StringBuilder peers = new StringBuilder();
            int[] raftPorts = new int[MEMBERS];
            for (int i = 0; i < MEMBERS; i++) {
                raftPorts[i] = RemoteNbdServer.freePort();
                peers.append(i == 0 ? "" : ",").append("n").append(i).append("=127.0.0.1:").append(raftPorts[i]);
            }
            // Congestion bypass off: on a loaded machine latency alone would send writes around the cache.
            String config = "knob.volume.default.congested_read_threshold_us=0\n"
                    + "knob.volume.default.congested_write_threshold_us=0\n";
            for (int i = 0; i < MEMBERS; i++) {
                ReplicaProcess member = ReplicaProcess.of("n" + i, dir.resolve("n" + i), peers.toString(),
                        backing.uri(EXPORT), RemoteNbdServer.freePort(), RemoteNbdServer.freePort(), config,
                        CHILD_ENVIRONMENT);
                members.add(member);
                member.start();
            }
            long term = -1;
            for (int round = 0; round <= rounds; round++) {
                where = round < rounds ? "round " + round : "final segment";
                ReplicaProcess leader = awaitLeader(term);
                term = leader.servingTerm();
                if (model == null) {
                    model = new ProcessFuzzModel(exportSizeBytes(leader));
                } else {
                    readBack(leader);
                }
                if (round == rounds) {
                    segment(leader, 50, false);
                    readBack(leader);
                    break;
                }
                awaitAllFollow(leader);
                segment(leader, KILL_AFTER_OPERATIONS_MIN + random.nextInt(KILL_AFTER_OPERATIONS_SPREAD), true);
                long killedNs = System.nanoTime();
                boolean machineLost = random.nextInt(4) == 0;
                if (machineLost) {
                    deleteTree(leader.dataDir);
                    machinesLost++;
                }
                ReplicaProcess next = awaitLeader(term);
                long tookMs = (System.nanoTime() - killedNs) / 1_000_000;
                failovers++;
                failoverMsTotal += tookMs;
                failoverMsMax = Math.max(failoverMsMax, tookMs);
                leader.start(); // rejoins as a follower (with an empty directory: catches up from the others)
                if (next == leader) {
                    throw violation("the killed member leads again before it restarted");
                }
            }
        } finally {
            for (ReplicaProcess member : members) {
                member.killMinusNine();
            }
        }
    }

    /** Waits for a member that serves in a term after {@code afterTerm}. */
    private ReplicaProcess awaitLeader(long afterTerm) throws Exception {
        long deadlineNs = System.nanoTime() + FAILOVER_TIMEOUT_MS * 1_000_000;
        while (System.nanoTime() < deadlineNs) {
            for (ReplicaProcess member : members) {
                if (member.alive() && member.servingTerm() > afterTerm) {
                    return member;
                }
            }
            Thread.sleep(POLL_MS); // polling child processes' logs, bounded by the deadline
        }
        throw violation("no member served within " + FAILOVER_TIMEOUT_MS + " ms after term " + afterTerm
                + logs());
    }

    /** Waits until every other member is up and follows (a kill with one member down would leave no quorum). */
    private void awaitAllFollow(ReplicaProcess leader) throws Exception {
        long deadlineNs = System.nanoTime() + FAILOVER_TIMEOUT_MS * 1_000_000;
        for (ReplicaProcess member : members) {
            while (member != leader && !(member.alive() && member.follows())) {
                if (System.nanoTime() > deadlineNs) {
                    throw violation("member " + member.id + " did not rejoin within " + FAILOVER_TIMEOUT_MS + " ms"
                            + logs());
                }
                Thread.sleep(POLL_MS); // polling a child process's log, bounded by the deadline
            }
        }
    }

    private void segment(ReplicaProcess leader, int operations, boolean kill) throws Exception {
        long target = counters.operations() + operations;
        AtomicBoolean killing = new AtomicBoolean();
        List<ProcessFuzzWorker> workers = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        List<NbdTestClient> clients = new ArrayList<>();
        try {
            for (int w = 0; w < WORKERS; w++) {
                NbdTestClient client = connect(leader);
                clients.add(client);
                ProcessFuzzWorker worker = new ProcessFuzzWorker("seed " + seed + " " + where + " worker " + w,
                        client, model, random.split(), killing::get, counters);
                workers.add(worker);
                threads.add(Thread.ofPlatform().name("replication-fuzz-" + w).start(worker));
            }
            if (!counters.awaitOperations(target, SEGMENT_TIMEOUT_MS) && firstViolation(workers) == null) {
                throw violation("only " + counters.operations() + " of " + target + " requests done after "
                        + SEGMENT_TIMEOUT_MS + " ms" + logs());
            }
            if (kill) {
                killing.set(true);
                boolean inFlight = workers.stream().anyMatch(ProcessFuzzWorker::waitingForReply);
                leader.killMinusNine();
                counters.killed(inFlight);
            }
            workers.forEach(ProcessFuzzWorker::stop);
            for (Thread thread : threads) {
                thread.join(WORKER_JOIN_MS);
                if (thread.isAlive()) {
                    throw violation("a worker still ran " + WORKER_JOIN_MS + " ms after the "
                            + (kill ? "kill" : "stop"));
                }
            }
        } finally {
            for (NbdTestClient client : clients) {
                client.close();
            }
        }
        String wrong = firstViolation(workers);
        if (wrong != null) {
            throw violation(wrong + logs());
        }
    }

    /** Reads the whole volume from the new leader and checks it against the durable values; adopts what it read. */
    private void readBack(ReplicaProcess leader) throws Exception {
        int sectorBytes = BlockDevice.SECTOR_BYTES;
        long sizeBytes = model.sectorCount() * sectorBytes;
        byte[] image = new byte[Math.toIntExact(sizeBytes)];
        try (NbdTestClient client = connect(leader)) {
            for (long at = 0; at < sizeBytes; at += READ_BACK_BYTES) {
                int length = (int) Math.min(READ_BACK_BYTES, sizeBytes - at);
                NbdTestClient.Reply reply = client.call(0, NbdProtocol.CMD_READ, at, length, null);
                if (reply.error() != 0) {
                    throw violation("read-back of [" + at + ", +" + length + ") failed with NBD error "
                            + reply.error() + " " + reply.message() + logs());
                }
                String wrong = model.checkRecovered(at / sectorBytes, reply.data());
                if (wrong != null) {
                    throw violation("read-back on the new leader " + leader.id + ": " + wrong + logs());
                }
                System.arraycopy(reply.data(), 0, image, (int) at, length);
            }
        }
        model.adopt(0, image);
    }

    private static long exportSizeBytes(ReplicaProcess leader) throws IOException {
        try (NbdTestClient client = connect(leader)) {
            return client.exportSizeBytes();
        }
    }

    private static NbdTestClient connect(ReplicaProcess leader) throws IOException {
        return new NbdTestClient(new InetSocketAddress("127.0.0.1", leader.nbdPort))
                .readTimeoutMs(NBD_REPLY_TIMEOUT_MS).go(EXPORT, false);
    }

    private static String firstViolation(List<ProcessFuzzWorker> workers) {
        for (ProcessFuzzWorker worker : workers) {
            if (worker.violation() != null) {
                return worker.violation();
            }
        }
        return null;
    }

    private String logs() throws IOException {
        StringBuilder text = new StringBuilder();
        for (ReplicaProcess member : members) {
            String log = member.log();
            text.append("\n--- member ").append(member.id).append(" (last lines)\n")
                    .append(log.length() > 3000 ? log.substring(log.length() - 3000) : log);
        }
        return text.toString();
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    ProcessFuzzViolation violation(String what) {
        return new ProcessFuzzViolation("replication fuzz seed " + seed + ", " + where + ": " + what
                + "\nreplay: ./mvnw -B test -Dtest=ReplicationFuzzTest -Dblockcache.replicationFuzzSeed=" + seed);
    }
}
