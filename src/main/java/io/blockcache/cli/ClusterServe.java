package io.blockcache.cli;

import io.blockcache.admin.AdminEndpoint;
import io.blockcache.admin.AdminServer;
import io.blockcache.admin.ClusterControl;
import io.blockcache.backing.BackingLocation;
import io.blockcache.device.IoResult;
import io.blockcache.host.CacheHost;
import io.blockcache.host.HostException;
import io.blockcache.json.JsonWriter;
import io.blockcache.log.EventName;
import io.blockcache.log.LogEvent;
import io.blockcache.replication.ReplicaNode;
import io.blockcache.replication.ReplicaPeers;
import io.blockcache.replication.ReplicatedServing;
import io.blockcache.volume.Volume;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * {@code serve --node-id ID --peers ...}: one member of a replication group (docs/SCALE.md, "Replication"). It runs
 * its Raft member all along; while it leads, it serves the group's volumes from a fresh cache into which it first
 * replays the replica (every write not yet known clean on the shared backing store); when it stops leading it stops
 * serving at once. The backing store is fenced by the group's lease ({@code device.FencedDevice}); writeback starts
 * only {@link #FENCE_DELAY} after this node began to serve, so that requests a former server had already sent when its
 * lease lapsed have landed before this one writes the same blocks.
 *
 * <p>Thread rule: the main thread; the shutdown hook.
 */
final class ClusterServe {
    /** How often leadership is checked. */
    static final Duration POLL = Duration.ofMillis(100);
    /** Writeback of a new server waits this long: two election timeouts and a margin for requests on the wire. */
    static final Duration FENCE_DELAY = Duration.ofMillis(2 * ReplicaNode.ELECTION_TIMEOUT_MAX_MS + 2_000);

    /** How long a transfer of the lead may take (the new leader must catch up first). */
    static final Duration TRANSFER_TIMEOUT = Duration.ofSeconds(20);
    /** How long a new leader waits for its first lease renewal before it gives up this turn. */
    static final Duration LEASE_WAIT = Duration.ofSeconds(5);

    private final ServeSettings settings;
    private final ReplicaNode node;
    private final PrintWriter out;
    /** Every line this member writes on stderr, in serve's {@code --log-format}; it outlives each serving term. */
    private final PrintWriter err;
    private final EventLog log;
    private volatile ServeRuntime runtime;
    /** What the admin API asks of this member: its status, and handing the lead to another member. */
    private final ClusterControl control = new ClusterControl() {
        @Override
        public String statusJson() {
            return ClusterServe.this.statusJson();
        }

        @Override
        public String transferLeader(String id) {
            return node.transferLeader(id, TRANSFER_TIMEOUT.toMillis());
        }
    };
    /** The admin address while this member follows (null while it serves, or if it could not bind). */
    private AdminEndpoint followerAdmin;
    private String followerAdminProblem;
    private volatile boolean stopping;

    private ClusterServe(ServeSettings settings, ReplicaNode node, PrintWriter out, PrintWriter err, EventLog log) {
        this.settings = settings;
        this.node = node;
        this.out = out;
        this.err = err;
        this.log = log;
    }

    /** Runs the member until the process is stopped; the exit code. */
    static int run(ServeSettings settings, String nodeId, String peerList, PrintWriter out, PrintWriter err,
                   EventLog log) {
        ReplicaPeers peers;
        try {
            peers = ReplicaPeers.parse(nodeId, peerList == null ? "" : peerList);
        } catch (IllegalArgumentException e) {
            return fail(log, e.getMessage(), 2);
        }
        for (Map.Entry<String, BackingLocation> b : settings.backings().entrySet()) {
            if (b.getValue() instanceof BackingLocation.File) {
                return fail(log, "replication needs a backing store every member reaches (s3:// or nbd://); "
                        + b.getKey() + " is a file on this node, which a failover could not take along", 2);
            }
        }
        ReplicaNode node;
        try {
            node = ReplicaNode.start(peers, groupName(settings), settings.dataDir().resolve("replica"));
        } catch (IOException | RuntimeException e) {
            return fail(log, "cannot start replication on " + peers.selfAddress() + ": " + e.getMessage(), 1);
        }
        ClusterServe member = new ClusterServe(settings, node, out, err, log);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            member.stopping = true;
            member.stopServing("stopping");
            member.closeFollowerAdmin();
            try {
                node.close();
            } catch (IOException e) {
                log.now(EventName.CLUSTER_PROBLEM, "closing replication: " + e.getMessage());
            }
            log.now(EventName.SERVE_STOPPED, "stopped");
            log.close();
            Runtime.getRuntime().halt(0);
        }, "blockcache-shutdown"));
        log.now(LogEvent.of(EventName.CLUSTER_STARTED, "node " + peers.self() + " of "
                + new TreeSet<>(peers.members().keySet()) + ", replication on " + peers.selfAddress().getHostString()
                + ":" + peers.selfAddress().getPort() + "; waiting for a leader").with("node", peers.self()));
        member.loop();
        return 0;
    }

    /** The group's name: its volumes and their backing stores, the same on every member. */
    static String groupName(ServeSettings settings) {
        StringBuilder name = new StringBuilder();
        for (Map.Entry<String, BackingLocation> b : new java.util.TreeMap<>(settings.backings()).entrySet()) {
            name.append(b.getKey()).append('=').append(b.getValue()).append(';');
        }
        return name.toString();
    }

    private void loop() {
        String leaderSeen = null;
        while (!stopping) {
            long term = node.servingTerm();
            if (term >= 0) {
                closeFollowerAdmin(); // serve binds the same address for the whole API
                serve(term);
                leaderSeen = null;
                continue;
            }
            openFollowerAdmin();
            String leader = node.leaderId();
            if (leader != null && !leader.equals(leaderSeen) && !leader.equals(node.id())) {
                log.now(LogEvent.of(EventName.CLUSTER_FOLLOWING, "following " + leader).with("leader", leader));
                leaderSeen = leader;
            }
            pause();
        }
    }

    /** Serves while this node leads in {@code term}. */
    private void serve(long term) {
        Path servingDir = settings.dataDir().resolve("serving");
        long replayBytes;
        try {
            deleteTree(servingDir);
            replayBytes = node.status().replicaBytes();
        } catch (IOException e) {
            log.now(EventName.CLUSTER_PROBLEM, "cannot clear " + servingDir + " to serve: " + e.getMessage());
            pause();
            return;
        }
        try {
            if (!node.holdLease(term, LEASE_WAIT.toMillis())) {
                log.now(EventName.CLUSTER_PROBLEM, "leads (term " + term + ") but holds no lease: "
                        + node.leaseProblem(term));
                node.releaseLease();
                pause();
                return;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stopping = true;
            return;
        }
        log.now(LogEvent.of(EventName.CLUSTER_LEADING, "leads (term " + term + "): replaying "
                + ByteSizes.human(replayBytes) + " of replicated dirty data").with("term", term)
                .with("bytes", replayBytes));
        ServeSettings serving = settings.forReplica(servingDir);
        try {
            runtime = ServeRuntime.start(serving, true, err, log, host -> replay(host, term),
                    () -> node.leaseProblem(term));
        } catch (ServeRuntime.ServeException e) {
            log.now(EventName.CLUSTER_PROBLEM, "cannot serve: " + e.getMessage());
            runtime = null;
            node.releaseLease();
            pause();
            return;
        }
        runtime.cluster(control);
        log.now(LogEvent.of(EventName.CLUSTER_SERVING, "serving " + serving.backings().keySet() + " on nbd://"
                + ServeCommand.hostPort(runtime.nbdAddress()) + ", admin http://"
                + ServeCommand.hostPort(runtime.adminAddress()) + " (term " + term + ")").with("term", term));
        out.flush();
        long writebackAtNs = System.nanoTime() + FENCE_DELAY.toNanos();
        boolean writebackOn = false;
        while (!stopping && node.leads(term) && node.leaseProblem(term) == null && runtime.loop().failure() == null) {
            if (!writebackOn && System.nanoTime() >= writebackAtNs) {
                writebackOn = startWriteback(serving);
            }
            pause();
        }
        if (!stopping) {
            Throwable failure = runtime.loop().failure();
            String lease = node.leaseProblem(term);
            stopServing(failure != null ? "the cache failed: " + failure
                    : !node.leads(term) ? "no longer leads" + newLeader() : lease);
        }
    }

    /**
     * While following: the admin address answers {@code GET /api/cluster} (and 503 naming the leader elsewhere). A
     * failure to bind is logged once and tried again on the next turn.
     */
    private synchronized void openFollowerAdmin() {
        if (followerAdmin != null) {
            return;
        }
        try {
            followerAdmin = AdminEndpoint.bind(settings.adminListen(), AdminServer.following(control,
                    node::leaderId), ServeRuntime.adminGuard(settings, log));
            followerAdminProblem = null;
        } catch (IOException e) {
            String problem = "cannot listen for the admin API on " + ServeCommand.hostPort(settings.adminListen())
                    + " while following: " + e.getMessage();
            if (!problem.equals(followerAdminProblem)) {
                log.now(EventName.CLUSTER_PROBLEM, problem);
                followerAdminProblem = problem;
            }
        }
    }

    private synchronized void closeFollowerAdmin() {
        if (followerAdmin != null) {
            followerAdmin.close();
            followerAdmin = null;
        }
    }

    /** {@code GET /api/cluster}: this member's view of the group. */
    String statusJson() {
        JsonWriter json = new JsonWriter().beginObject();
        try {
            ReplicaNode.Status s = node.status();
            json.name("node").value(s.self()).name("role").value(s.role()).name("serving").value(runtime != null)
                    .name("leader").value(s.leader() == null ? "" : s.leader()).name("term").value(s.term())
                    .name("lastIndex").value(s.lastIndex()).name("committedIndex").value(s.committedIndex())
                    .name("appliedIndex").value(s.appliedIndex()).name("replicaBytes").value(s.replicaBytes())
                    .name("replicaPieces").value(s.replicaPieces()).name("members").beginArray();
            for (Map.Entry<String, java.net.InetSocketAddress> m : new java.util.TreeMap<>(node.peers().members())
                    .entrySet()) {
                json.beginObject().name("id").value(m.getKey()).name("address")
                        .value(m.getValue().getHostString() + ":" + m.getValue().getPort());
                for (ReplicaNode.Follower f : s.followers()) {
                    if (f.id().equals(m.getKey())) {
                        json.name("behindEntries").value(f.behindEntries()).name("lastContactMs")
                                .value(f.lastContactMs());
                    }
                }
                json.endObject();
            }
            json.endArray();
        } catch (IOException e) {
            json.name("error").value("replication is not running: " + e.getMessage());
        }
        return json.endObject().toString();
    }

    /** " (leader: ID)" if another member is known to lead, else nothing (the election may still run). */
    private String newLeader() {
        String leader = node.leaderId();
        return leader == null || leader.equals(node.id()) ? "" : " (leader: " + leader + ")";
    }

    private void replay(CacheHost host, long term) throws ServeRuntime.ServeException {
        Map<String, Volume> volumes = new LinkedHashMap<>();
        IoResult result;
        try {
            result = host.onLoop(done -> {
                for (String name : host.cacheSet().exportNames()) {
                    volumes.put(name, host.cacheSet().volume(name));
                }
                ReplicatedServing.attach(host.loop(), volumes, node, term, done::accept);
            });
        } catch (HostException e) {
            throw new ServeRuntime.ServeException("replay: " + e.getMessage());
        }
        if (!result.ok()) {
            throw new ServeRuntime.ServeException("replay: " + result.message());
        }
    }

    private boolean startWriteback(ServeSettings serving) {
        Map<String, String> on = new LinkedHashMap<>();
        for (String name : serving.backings().keySet()) {
            on.put("writeback." + name + ".running", String.valueOf(settings.knobs()
                    .getOrDefault("writeback." + name + ".running", "true")));
        }
        try {
            String problem = runtime.host().applyKnobs(on);
            if (problem != null) {
                log.now(EventName.CLUSTER_PROBLEM, "starting writeback: " + problem);
            }
        } catch (HostException e) {
            log.now(EventName.CLUSTER_PROBLEM, "starting writeback: " + e.getMessage());
        }
        return true;
    }

    /** Stops serving, if it does; the runtime's own stop keeps the order (NBD first, then the cache). */
    private synchronized void stopServing(String why) {
        ServeRuntime serving = runtime;
        if (serving == null) {
            return;
        }
        log.now(LogEvent.of(EventName.CLUSTER_STOPPED_SERVING, why + "; stops serving").with("reason", why));
        node.releaseLease(); // the backing fence closes now, whatever the stop below still does
        try {
            // No backing write from here on: the next server may already write the same store.
            serving.host().applyKnobs(writebackOff(serving.settings()));
        } catch (HostException | RuntimeException e) {
            log.now(EventName.CLUSTER_PROBLEM, "stopping writeback: " + e.getMessage());
        }
        serving.stop(false);
        runtime = null;
    }

    private static Map<String, String> writebackOff(ServeSettings serving) {
        Map<String, String> off = new LinkedHashMap<>();
        for (String name : serving.backings().keySet()) {
            off.put("writeback." + name + ".running", "false");
        }
        return off;
    }

    private void pause() {
        try {
            Thread.sleep(POLL.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stopping = true;
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    private static int fail(EventLog log, String message, int code) {
        log.now(EventName.SERVE_START_FAILED, message);
        return code;
    }
}
