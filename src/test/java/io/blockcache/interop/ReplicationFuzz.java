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
    static final int WORKERS = 2;
    static final int KILL_AFTER_OPERATIONS_MIN = 20;
    static final int KILL_AFTER_OPERATIONS_SPREAD = 150;
    static final long SEGMENT_TIMEOUT_MS = 60_000;
    static final long WORKER_JOIN_MS = 30_000;
    private static final int NBD_REPLY_TIMEOUT_MS = 60_000;
    private static final int READ_BACK_BYTES = 1 << 20;

    private final long seed;
    private final Path dir;
    private final ProcessFuzzCounters counters = new ProcessFuzzCounters();
    private final SplittableRandom random;
    private ReplicaGroup group;
    private ProcessFuzzModel model;
    private String where = "start";
    private long failoverMsMax;
    private long failoverMsTotal;
    private int failovers;
    private int machinesLost;
    private int selfStops;

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

    /** Segments in which the leader stopped serving on its own (its lease lapsed), not by a kill. */
    int selfStops() {
        return selfStops;
    }

    String failoverSummary() {
        return failovers + " failovers, kill to serving: mean " + (failovers == 0 ? 0 : failoverMsTotal / failovers)
                + " ms, max " + failoverMsMax + " ms";
    }

    /** Runs {@code rounds} leader kills, each followed by a whole-volume check on the new leader. */
    void run(int rounds) throws Exception {
        // Congestion bypass off: on a loaded machine latency alone would send writes around the cache.
        try (ReplicaGroup group = ReplicaGroup.start(dir, "16M", "knob.volume.default.congested_read_threshold_us=0\n"
                + "knob.volume.default.congested_write_threshold_us=0\n")) {
            this.group = group;
            for (int round = 0; round <= rounds; round++) {
                where = round < rounds ? "round " + round : "final segment";
                ReplicaProcess leader = awaitLeader(null);
                if (model == null) {
                    model = new ProcessFuzzModel(exportSizeBytes(leader));
                } else {
                    readBack(leader);
                }
                if (round == rounds) {
                    segment(leader, 50, false);
                    readBack(awaitLeader(null));
                    break;
                }
                ReplicaProcess behind = group.awaitAllFollow(leader);
                if (behind != null) {
                    throw violation("member " + behind.id + " did not rejoin within " + ReplicaGroup.LEADER_TIMEOUT_MS
                            + " ms" + group.logs());
                }
                segment(leader, KILL_AFTER_OPERATIONS_MIN + random.nextInt(KILL_AFTER_OPERATIONS_SPREAD), true);
                long killedNs = System.nanoTime();
                if (random.nextInt(4) == 0) {
                    deleteTree(leader.dataDir); // the machine is lost: cache, log and replica with it
                    machinesLost++;
                }
                awaitLeader(leader);
                long tookMs = (System.nanoTime() - killedNs) / 1_000_000;
                failovers++;
                failoverMsTotal += tookMs;
                failoverMsMax = Math.max(failoverMsMax, tookMs);
                leader.start(); // rejoins as a follower (with an empty directory: catches up from the others)
            }
        }
    }

    /** The member that serves now, other than {@code not} (the one just killed). */
    private ReplicaProcess awaitLeader(ReplicaProcess not) throws Exception {
        ReplicaProcess leader = group.awaitLeader(not);
        if (leader == null) {
            throw violation("no member served within " + ReplicaGroup.LEADER_TIMEOUT_MS + " ms" + group.logs());
        }
        return leader;
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
                        + SEGMENT_TIMEOUT_MS + " ms" + group.logs());
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
        if (wrong != null && refusedBecauseItStopped(wrong, leader)) {
            selfStops++; // a failover without a kill: its requests failed, none was acknowledged
        } else if (wrong != null) {
            throw violation(wrong + group.logs());
        }
    }

    /**
     * True if {@code wrong} is a refusal (an NBD error, a closed connection: never wrong data) and the leader said it
     * stopped serving on its own — its lease lapsed on a machine too loaded to renew it in time, as a partition would
     * make it do. That is the fencing at work, not a broken rule: what it did not acknowledge is the model's "maybe".
     */
    private static boolean refusedBecauseItStopped(String wrong, ReplicaProcess leader) throws IOException {
        boolean refusal = wrong.contains("failed with NBD error") || wrong.contains("the connection broke");
        return refusal && leader.log().contains("stops serving");
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
                            + reply.error() + " " + reply.message() + group.logs());
                }
                String wrong = model.checkRecovered(at / sectorBytes, reply.data());
                if (wrong != null) {
                    throw violation("read-back on the new leader " + leader.id + ": " + wrong + group.logs());
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
