package io.blockcache.interop;

import io.blockcache.device.BlockDevice;
import io.blockcache.nbd.NbdProtocol;
import io.blockcache.nbd.NbdTestClient;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/**
 * The process-level fuzz (docs/TESTING.md "Process fuzz"): real {@code serve} processes under a seeded random NBD
 * workload ({@link ProcessFuzzWorker}s on several connections), killed with SIGKILL at a random count of completed
 * requests, with live mode switches, writeback on and off and drains through the admin API; after every restart the
 * whole volume is read back over NBD and judged by the simulator's reference model ({@link ProcessFuzzModel}); at
 * the end a drain, a clean stop, and the backing file's data area compared with what was last read.
 *
 * <p>One run is a function of its seed as far as the draws go (the workload of each worker, the kill points, the
 * admin actions); how the workers' requests interleave and where in them the kill lands is up to the machine. A
 * failure throws {@link ProcessFuzzViolation} naming the seed, the round and the request. Every wait is bounded.
 * Thread rule: one thread runs a fuzz; it starts and joins its workers.
 */
final class ProcessFuzz {
    /** The export every run uses (serve's default). */
    static final String EXPORT = "default";
    /** Backing file size: small, so that a whole read-back takes a fraction of a second (its volume is 15 MiB). */
    static final String BACKING_SIZE = "16M";
    /** Connections (workers) per incarnation: three requests in flight, on two cores. */
    static final int WORKERS = 3;
    /** Kill after this many completed requests at least, and below this many more (drawn per round). */
    static final int KILL_AFTER_OPERATIONS_MIN = 10;
    static final int KILL_AFTER_OPERATIONS_SPREAD = 150;
    /** Requests of the final, crash-free segment. */
    static final int FINAL_OPERATIONS = 100;
    /** The longest a round's workload may take to reach its kill point on a loaded machine before the run fails. */
    static final long SEGMENT_TIMEOUT_MS = 60_000;
    /** Workers end within this after the kill (their socket reads fail at once) or stop (one request). */
    static final long WORKER_JOIN_MS = 30_000;
    /** The final drain's bound: 15 MiB to a local file takes well under a second; a loaded machine, longer. */
    static final Duration DRAIN_WAIT = Duration.ofSeconds(120);
    /**
     * JVM flags for every serve: C1 only and the serial collector start a JVM in about half the time, and starts are
     * most of a round; the fuzz checks correctness, not speed.
     */
    private static final Map<String, String> CHILD_ENVIRONMENT =
            Map.of("JAVA_TOOL_OPTIONS", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC");
    /**
     * Bounds on one admin request and one NBD reply. Far above what they take (milliseconds): the soak runs at
     * {@code nice -n 19} beside other builds, where a starved serve answered a knob after more than 10 s.
     */
    static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(60);
    static final int NBD_REPLY_TIMEOUT_MS = 120_000;
    /** Bytes per read of a whole-volume read-back. */
    private static final int READ_BACK_BYTES = 1 << 20;
    private static final String[] MODES = {"writeback", "writethrough", "writearound", "none"};

    private final long seed;
    private final Path dir;
    private final ProcessFuzzCounters counters;
    private final SplittableRandom random;
    private ProcessFuzzModel model;
    private String where = "start";

    /**
     * @param dir an empty directory this run owns (the caller deletes it)
     * @param counters where the run counts what it does (a soak shares one over its seeds)
     */
    ProcessFuzz(long seed, Path dir, ProcessFuzzCounters counters) {
        this.seed = seed;
        this.dir = dir;
        this.counters = counters;
        this.random = new SplittableRandom(seed);
    }

    /** What the run did. */
    ProcessFuzzCounters counters() {
        return counters;
    }

    /** Sectors of the volume. */
    long sectorCount() {
        return model.sectorCount();
    }

    /** Sectors checked after a restart whose durable value was written data (the crash oracle's reach). */
    long durableWrittenSectorsChecked() {
        return model == null ? 0 : model.durableWrittenSectorsChecked();
    }

    /**
     * Runs {@code rounds} kill rounds and the final checks.
     *
     * @return the number of sectors of the backing file compared with the final image
     * @throws ProcessFuzzViolation on a broken rule
     */
    long run(int rounds) throws Exception {
        return run(rounds, () -> false);
    }

    /**
     * {@link #run(int)}, but no new kill round starts once {@code timeUp} says so: the final segment and checks
     * follow (a soak that stops on time).
     */
    long run(int roundsMax, BooleanSupplier timeUp) throws Exception {
        Path dataDir = dir.resolve("data");
        ServeProcess serve = null;
        int rounds = roundsMax;
        try {
            for (int round = 0; round <= rounds; round++) {
                if (round < rounds && timeUp.getAsBoolean()) {
                    rounds = round;
                }
                where = round < rounds ? "round " + round : "final segment";
                if (round > 0 && random.nextInt(3) == 0) {
                    killDuringStart(dataDir, round);
                }
                long startNs = System.nanoTime();
                serve = ServeProcess.start(dataDir, "r" + round, "", BACKING_SIZE, CHILD_ENVIRONMENT);
                counters.serveStarted(System.nanoTime() - startNs);
                if (round == 0) {
                    model = new ProcessFuzzModel(exportSizeBytes(serve));
                } else {
                    readBack(serve, true);
                }
                if (round < rounds) {
                    segment(serve, KILL_AFTER_OPERATIONS_MIN + random.nextInt(KILL_AFTER_OPERATIONS_SPREAD), true);
                    serve = null; // killed
                } else {
                    segment(serve, FINAL_OPERATIONS, false);
                }
            }
            where = "final drain";
            ServeProcess server = serve;
            admin(serve, "the final drain", () -> ServeAdmin.awaitDrainDone(server, EXPORT,
                    ServeAdmin.startDrain(server, EXPORT, ADMIN_TIMEOUT), DRAIN_WAIT, ADMIN_TIMEOUT));
            counters.drainStarted();
            where = "read-back after the final drain";
            byte[] image = readBack(serve, false);
            where = "clean stop";
            serve.close();
            int exit = serve.exitValue();
            if (exit != 0) {
                throw violation("serve exited " + exit + " on SIGTERM: " + serve.log());
            }
            serve = null;
            where = "backing file after the final drain";
            return ProcessFuzzBacking.compare(dataDir.resolve("backing.img"), image, model, this::violation);
        } finally {
            if (serve != null) {
                serve.killMinusNine();
            }
        }
    }

    /**
     * A nested crash: starts serve on the killed one's files and kills it again before it is up, at a random moment
     * of the later half of an average start (where the open and recovery are, after the JVM's own start-up).
     */
    private void killDuringStart(Path dataDir, int round) throws Exception {
        long killAfterMs = counters.serveStartMsAverage() / 2 + random.nextLong(counters.serveStartMsAverage() / 2 + 1);
        String name = "r" + round + "-early";
        if (!ServeProcess.startAndKill(dataDir, name, "", BACKING_SIZE, CHILD_ENVIRONMENT, killAfterMs)) {
            throw violation("serve ended by itself within " + killAfterMs + " ms of its start: "
                    + Files.readString(dataDir.resolveSibling("data-" + name + ".err")));
        }
        counters.killedDuringStart();
    }

    /**
     * One incarnation's workload: workers on their connections, admin actions meanwhile, then (if {@code kill}) a
     * SIGKILL once {@code operations} requests completed, or (if not) a stop of the workers then.
     */
    private void segment(ServeProcess serve, int operations, boolean kill) throws Exception {
        long target = counters.operations() + operations;
        AtomicBoolean killing = new AtomicBoolean();
        List<ProcessFuzzWorker> workers = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        List<NbdTestClient> clients = new ArrayList<>();
        try {
            for (int w = 0; w < WORKERS; w++) {
                NbdTestClient client = connect(serve);
                clients.add(client);
                ProcessFuzzWorker worker = new ProcessFuzzWorker("seed " + seed + " " + where + " worker " + w,
                        client, model, random.split(), killing::get, counters);
                workers.add(worker);
                threads.add(Thread.ofPlatform().name("process-fuzz-" + w).start(worker));
            }
            adminActions(serve, target - operations / 2);
            if (!counters.awaitOperations(target, SEGMENT_TIMEOUT_MS) && firstViolation(workers) == null) {
                throw violation("only " + counters.operations() + " of " + target + " requests done after "
                        + SEGMENT_TIMEOUT_MS + " ms");
            }
            if (kill) {
                killing.set(true);
                boolean inFlight = workers.stream().anyMatch(ProcessFuzzWorker::waitingForReply);
                serve.killMinusNine();
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
            throw violation(wrong + (kill ? "" : "\n--- serve\n" + serve.log()));
        }
    }

    /**
     * Before half of the segment's requests are done: with even chance a switch of the volume's mode, writeback
     * turned on or off, a drain started (not waited for); so the kill lands among their effects.
     */
    private void adminActions(ServeProcess serve, long halfway) throws Exception {
        if (random.nextBoolean()) {
            setKnob(serve, "writeback." + EXPORT + ".running", Boolean.toString(random.nextBoolean()));
        }
        if (random.nextBoolean()) {
            setKnob(serve, "volume." + EXPORT + ".mode", MODES[random.nextInt(MODES.length)]);
            counters.modeSwitched();
        }
        boolean drain = random.nextInt(3) == 0;
        boolean secondSwitch = random.nextInt(3) == 0;
        if (!counters.awaitOperations(halfway, SEGMENT_TIMEOUT_MS)) {
            return; // a worker failed or the machine is stalled: the caller's wait says which
        }
        if (drain) {
            admin(serve, "starting a drain", () -> ServeAdmin.startDrain(serve, EXPORT, ADMIN_TIMEOUT));
            counters.drainStarted();
        }
        if (secondSwitch) {
            setKnob(serve, "volume." + EXPORT + ".mode", MODES[random.nextInt(MODES.length)]);
            counters.modeSwitched();
        }
    }

    private void setKnob(ServeProcess serve, String name, String value) throws Exception {
        admin(serve, "setting " + name + " to " + value, () -> ServeAdmin.setKnob(serve, name, value, ADMIN_TIMEOUT));
    }

    /** One request to the admin API. */
    @FunctionalInterface
    private interface AdminRequest {
        void run() throws Exception;
    }

    /** Runs an admin request; a failure (an error status, a timeout) is a violation naming it, with serve's log. */
    private void admin(ServeProcess serve, String what, AdminRequest request) throws Exception {
        long startNs = System.nanoTime();
        try {
            request.run();
            counters.adminRequestTook(what, System.nanoTime() - startNs);
        } catch (IOException | AssertionError failed) {
            throw violation("admin request " + what + " failed: " + failed + "\n--- serve\n" + serve.log());
        }
    }

    /**
     * Reads the whole volume over NBD and checks it: after a restart ({@code recovered}) against the durable values,
     * then adopted as the new durable state; else as a read of the live model. Returns the bytes read.
     */
    private byte[] readBack(ServeProcess serve, boolean recovered) throws IOException {
        int sectorBytes = BlockDevice.SECTOR_BYTES;
        long sizeBytes = model.sectorCount() * sectorBytes;
        byte[] image = new byte[Math.toIntExact(sizeBytes)];
        try (NbdTestClient client = connect(serve)) {
            for (long at = 0; at < sizeBytes; at += READ_BACK_BYTES) {
                int length = (int) Math.min(READ_BACK_BYTES, sizeBytes - at);
                long[] lowest = recovered ? null : model.readSubmitted(at / sectorBytes, length / sectorBytes);
                NbdTestClient.Reply reply = client.call(0, NbdProtocol.CMD_READ, at, length, null);
                if (reply.error() != 0) {
                    throw violation("read-back of [" + at + ", +" + length + ") failed with NBD error "
                            + reply.error() + " " + reply.message());
                }
                String wrong = recovered ? model.checkRecovered(at / sectorBytes, reply.data())
                        : model.checkRead(at / sectorBytes, lowest, reply.data());
                if (wrong != null) {
                    throw violation("read-back " + (recovered ? "after kill -9 and restart" : "") + ": " + wrong);
                }
                System.arraycopy(reply.data(), 0, image, (int) at, length);
            }
        }
        if (recovered) {
            model.adopt(0, image);
        }
        return image;
    }

    private static long exportSizeBytes(ServeProcess serve) throws IOException {
        try (NbdTestClient client = connect(serve)) {
            return client.exportSizeBytes();
        }
    }

    private static NbdTestClient connect(ServeProcess serve) throws IOException {
        return new NbdTestClient(new InetSocketAddress("127.0.0.1", serve.nbdPort()))
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

    /** A violation naming the seed, where the run was and how to replay it. */
    ProcessFuzzViolation violation(String what) {
        return new ProcessFuzzViolation("process fuzz seed " + seed + ", " + where + ": " + what
                + "\nreplay: ./mvnw -B test -Dtest=ProcessFuzzTest -Dblockcache.processFuzzSeed=" + seed);
    }
}
