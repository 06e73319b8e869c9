package io.blockcache.replication;

import java.io.Closeable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;

/**
 * One member of a replication group: an embedded Apache Ratis server holding the replicated log and the
 * {@link DirtyReplica} in {@code dir}, to which the node appends its batches directly while it serves. Leadership is
 * Raft's: the leader serves the volumes, the others keep the replica.
 *
 * <p>Thread rule: any thread; Ratis runs its own.
 */
public final class ReplicaNode implements Closeable, ReplicaLog {
    /** Raft's election timeout range: a dead leader is replaced within about the upper bound plus an election. */
    public static final long ELECTION_TIMEOUT_MIN_MS = 3_000;
    public static final long ELECTION_TIMEOUT_MAX_MS = 6_000;
    /** A batch not committed within this long fails what waits for it (a leader cut off from its quorum). */
    public static final long COMMIT_TIMEOUT_MS = 10_000;
    /**
     * How long a committed entry vouches for this node's lead, from the moment it was sent: no other member can be
     * elected before a majority went an election timeout without hearing from this leader (pre-vote is on), so a lease
     * shorter than the shortest election timeout, by a margin for clock rate differences, ends before one can.
     */
    public static final long LEASE_MS = ELECTION_TIMEOUT_MIN_MS - 500;
    /** The lease is renewed at least this often while the node serves: by its batches, else by an empty entry. */
    static final long LEASE_RENEW_MS = 200;
    /** Log entries between two snapshots of the replica (each writes the whole replica, on Ratis's thread). */
    static final long SNAPSHOT_ENTRIES_DEFAULT = 2_000;
    /** A system property that overrides {@link #SNAPSHOT_ENTRIES_DEFAULT}: tests make snapshots frequent with it. */
    public static final String SNAPSHOT_ENTRIES_PROPERTY = "blockcache.replicaSnapshotEntries";
    /** Largest log entry: a batch closes at this size (a bigger write is split). */
    static final int BATCH_BYTES_MAX = 4 << 20;

    private final ReplicaPeers peers;
    private final RaftGroup group;
    private final RaftServer server;
    private final ReplicaStateMachine stateMachine;
    private final RaftProperties properties;
    /**
     * Hands each batch to this member's own Raft server in the process, one at a time in append order (Ratis appends a
     * request to its log before its submit call returns, so one thread keeps the order). Not through a Ratis client:
     * that went over gRPC on loopback to this very process, which cost each batch a protobuf copy out and in, a TCP
     * round trip and two more gRPC threads' work (measured 2026-12-07: docs/BENCHMARKS.md "Replication").
     */
    private final java.util.concurrent.ExecutorService appender = java.util.concurrent.Executors
            .newSingleThreadExecutor(r -> Thread.ofPlatform().daemon().name("blockcache-replica-append").unstarted(r));
    /** Names this process's appends to Raft's retry cache; call ids only grow. */
    private final ClientId clientId = ClientId.randomId();
    private final java.util.concurrent.atomic.AtomicLong callIds = new java.util.concurrent.atomic.AtomicLong();
    private final ReplicaLease lease = new ReplicaLease(term -> append(new ReplicaRecords().toBytes(term)));

    private ReplicaNode(ReplicaPeers peers, RaftGroup group, RaftServer server, ReplicaStateMachine stateMachine,
                        RaftProperties properties) {
        this.peers = peers;
        this.group = group;
        this.server = server;
        this.stateMachine = stateMachine;
        this.properties = properties;
    }

    /**
     * Starts this member: its log and snapshots in {@code dir} (created if new), listening on its address from
     * {@code peers}. {@code groupName} must be the same on every member (it names the group).
     *
     * @throws IOException if the storage cannot be opened or the port cannot be bound
     */
    public static ReplicaNode start(ReplicaPeers peers, String groupName, Path dir) throws IOException {
        List<RaftPeer> members = new ArrayList<>();
        for (Map.Entry<String, java.net.InetSocketAddress> m : peers.members().entrySet()) {
            members.add(RaftPeer.newBuilder().setId(m.getKey())
                    .setAddress(m.getValue().getHostString() + ":" + m.getValue().getPort()).build());
        }
        UUID groupId = UUID.nameUUIDFromBytes(("blockcache:" + groupName).getBytes(StandardCharsets.UTF_8));
        RaftGroup group = RaftGroup.valueOf(RaftGroupId.valueOf(groupId), members);
        RaftProperties properties = properties(peers, dir);
        ReplicaStateMachine stateMachine = new ReplicaStateMachine();
        boolean fresh = !Files.isDirectory(dir) || isEmpty(dir);
        Files.createDirectories(dir);
        RaftServer server = RaftServer.newBuilder().setGroup(group).setProperties(properties)
                .setServerId(RaftPeerId.valueOf(peers.self())).setStateMachine(stateMachine)
                .setOption(fresh ? RaftStorage.StartupOption.FORMAT : RaftStorage.StartupOption.RECOVER).build();
        server.start();
        return new ReplicaNode(peers, group, server, stateMachine, properties);
    }

    private static RaftProperties properties(ReplicaPeers peers, Path dir) {
        RaftProperties p = new RaftProperties();
        RaftServerConfigKeys.setStorageDir(p, List.of(dir.toFile()));
        GrpcConfigKeys.Server.setHost(p, peers.selfAddress().getHostString());
        GrpcConfigKeys.Server.setPort(p, peers.selfAddress().getPort());
        RaftServerConfigKeys.Rpc.setTimeoutMin(p, TimeDuration.valueOf(ELECTION_TIMEOUT_MIN_MS, TimeUnit.MILLISECONDS));
        RaftServerConfigKeys.Rpc.setTimeoutMax(p, TimeDuration.valueOf(ELECTION_TIMEOUT_MAX_MS, TimeUnit.MILLISECONDS));
        RaftServerConfigKeys.LeaderElection.setPreVote(p, true); // what the lease relies on (LEASE_MS)
        RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(p, true);
        RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(p, Long.getLong(SNAPSHOT_ENTRIES_PROPERTY,
                SNAPSHOT_ENTRIES_DEFAULT));
        RaftServerConfigKeys.Snapshot.setRetentionFileNum(p, 2);
        // Ratis keeps the entries of its open segment and of up to LOG_CACHED_SEGMENTS closed ones on the heap: with
        // 64 MB segments and its default of 6, that is more than serve's whole heap (sized for the cache's index, not
        // for Raft), and the leader spent a fifth of its CPU in the collector (measured 2026-12-07). Small segments,
        // few of them cached: a follower that lags further is sent the entries read back from the file.
        RaftServerConfigKeys.Log.setSegmentSizeMax(p, SizeInBytes.valueOf("8MB"));
        RaftServerConfigKeys.Log.setSegmentCacheNumMax(p, 2);
        RaftServerConfigKeys.Log.setSegmentCacheSizeMax(p, SizeInBytes.valueOf("24MB"));
        // The log before a snapshot holds nothing the snapshot lacks: drop it, or the disk fills with every write
        // ever made (a member far behind gets the snapshot instead).
        RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(p, true);
        RaftServerConfigKeys.Log.setPurgeGap(p, 256);
        // Ratis's leader otherwise appends a metadata entry (the new commit index) after each commit: one more entry
        // per batch that every member logs, sends and syncs (measured 2026-12-07: 2.2 entries per FLUSH, 1.1
        // without). The commit index is Raft's volatile state: a restarted member learns it from the leader, and a
        // leader serves only once an entry of its own term committed (servingTerm).
        RaftServerConfigKeys.Log.setLogMetadataEnabled(p, false);
        RaftServerConfigKeys.Log.Appender.setBufferByteLimit(p, SizeInBytes.valueOf("8MB"));
        RaftServerConfigKeys.Log.setWriteBufferSize(p, SizeInBytes.valueOf("16MB"));
        GrpcConfigKeys.setMessageSizeMax(p, SizeInBytes.valueOf("32MB"));
        RaftServerConfigKeys.Write.setByteLimit(p, SizeInBytes.valueOf("256MB"));
        return p;
    }

    private static boolean isEmpty(Path dir) throws IOException {
        try (var entries = Files.list(dir)) {
            return entries.findAny().isEmpty();
        }
    }

    /**
     * Asks Raft to hand the lead to member {@code id} (a planned move: maintenance of this machine). Waits up to
     * {@code timeoutMs}. This member stops serving once it no longer leads; the new leader replays and serves.
     *
     * @return null if the lead moved, else why not (an unknown id, this member itself, not the leader, a timeout)
     */
    public String transferLeader(String id, long timeoutMs) {
        if (!peers.members().containsKey(id)) {
            return "no member " + id + " in the group " + new java.util.TreeSet<>(peers.members().keySet());
        }
        if (id.equals(peers.self())) {
            return "member " + id + " leads already";
        }
        try (RaftClient admin = RaftClient.newBuilder().setProperties(properties).setRaftGroup(group)
                .setLeaderId(RaftPeerId.valueOf(peers.self())).setRetryPolicy(RetryPolicies.noRetry()).build()) {
            RaftClientReply reply = admin.admin().transferLeadership(RaftPeerId.valueOf(id), timeoutMs);
            return reply.isSuccess() ? null : "Raft refused: " + reply.getException();
        } catch (IOException e) {
            return "Raft refused: " + e.getMessage();
        }
    }

    /** Every member's id and replication address. */
    public ReplicaPeers peers() {
        return peers;
    }

    /** This node's id. */
    public String id() {
        return peers.self();
    }

    private DivisionInfo info() throws IOException {
        return server.getDivision(group.getGroupId()).getInfo();
    }

    /**
     * The Raft term in which this node leads and may serve, or -1: it must be leader, have committed an entry of its
     * term (so every earlier entry is committed), and have applied everything committed (so the replica is whole).
     */
    public long servingTerm() {
        try {
            RaftServer.Division division = server.getDivision(group.getGroupId());
            DivisionInfo info = division.getInfo();
            if (!info.isLeader() || !info.isLeaderReady()) {
                return -1;
            }
            return info.getLastAppliedIndex() >= division.getRaftLog().getLastCommittedIndex()
                    ? info.getCurrentTerm() : -1;
        } catch (IOException e) {
            return -1;
        }
    }

    /** True while this node leads in {@code term}. */
    public boolean leads(long term) {
        try {
            DivisionInfo info = info();
            return info.isLeader() && info.getCurrentTerm() == term;
        } catch (IOException e) {
            return false;
        }
    }

    /** The id of the member this node believes leads, or null. */
    public String leaderId() {
        try {
            var id = info().getLeaderId();
            return id == null ? null : id.toString();
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * What {@link #status} reports; {@code followers} only on the leader.
     *
     * @param lastIndex the last entry in this member's log
     */
    public record Status(String self, String role, String leader, long term, long lastIndex, long committedIndex,
                         long appliedIndex, long replicaBytes, long replicaPieces, List<Follower> followers) {
    }

    /**
     * A follower as the leader sees it: {@code behindEntries} log entries still to send it (0: caught up), and how long
     * ago it last answered.
     */
    public record Follower(String id, long behindEntries, long lastContactMs) {
    }

    /** Role, leader, term and log positions now. */
    public Status status() throws IOException {
        RaftServer.Division division = server.getDivision(group.getGroupId());
        DivisionInfo info = division.getInfo();
        long lastIndex = division.getRaftLog().getNextIndex() - 1;
        List<Follower> followers = new ArrayList<>();
        if (info.isLeader()) {
            var rpcs = info.getRoleInfoProto().getLeaderInfo().getFollowerInfoList();
            long[] next = info.getFollowerNextIndices();
            for (int i = 0; i < rpcs.size(); i++) {
                long behind = i < next.length ? Math.max(0, lastIndex + 1 - next[i]) : -1;
                followers.add(new Follower(rpcs.get(i).getId().getId().toStringUtf8(), behind,
                        rpcs.get(i).getLastRpcElapsedTimeMs()));
            }
        }
        return new Status(peers.self(), info.getCurrentRole().name().toLowerCase(java.util.Locale.ROOT), leaderId(),
                info.getCurrentTerm(), lastIndex, division.getRaftLog().getLastCommittedIndex(),
                info.getLastAppliedIndex(), stateMachine.replica().dataBytes(), stateMachine.replica().pieceCount(),
                followers);
    }

    /** The replicated state (read it only while this node serves: nothing applies then but its own batches). */
    DirtyReplica replica() {
        return stateMachine.replica();
    }

    /**
     * Appends one batch to this member's log, only if it leads (a node that lost the lead must not have its batches
     * appended through the new leader: they describe a volume it no longer serves); the future completes normally once
     * a quorum holds it and it was applied, and exceptionally if it was refused, skipped as stale, or not committed
     * within {@link #COMMIT_TIMEOUT_MS}. Completed on a Ratis thread (or the append thread if refused at once).
     */
    @Override
    public CompletableFuture<Void> append(byte[] batch) {
        long term = ReplicaRecords.termOf(batch);
        long sentNs = lease.sending(); // before the entry can reach any member: the lease counts from here
        RaftClientRequest request = RaftClientRequest.newBuilder().setClientId(clientId)
                .setServerId(RaftPeerId.valueOf(peers.self())).setGroupId(group.getGroupId())
                .setCallId(callIds.incrementAndGet())
                .setMessage(Message.valueOf(UnsafeByteOperations.unsafeWrap(batch)))
                .setType(RaftClientRequest.writeRequestType()).build();
        CompletableFuture<RaftClientReply> reply = new CompletableFuture<>();
        try {
            appender.execute(() -> {
                try {
                    server.submitClientRequestAsync(request).whenComplete((r, error) -> {
                        if (error != null) {
                            reply.completeExceptionally(error);
                        } else {
                            reply.complete(r);
                        }
                    });
                } catch (IOException | RuntimeException e) {
                    reply.completeExceptionally(e);
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            reply.completeExceptionally(new ReplicationException("this member is closed"));
        }
        return reply.orTimeout(COMMIT_TIMEOUT_MS, TimeUnit.MILLISECONDS).thenApply(r -> {
            check(r);
            lease.committed(term, sentNs); // a batch of the serving term renews the lease as an empty entry would
            return null;
        });
    }

    private static Void check(RaftClientReply reply) {
        if (!reply.isSuccess()) {
            throw new ReplicationException("the replicated log refused the batch: " + reply.getException());
        }
        if (!ReplicaStateMachine.APPLIED.getContent().equals(reply.getMessage().getContent())) {
            throw new ReplicationException("this node no longer leads: its batch was skipped");
        }
        return null;
    }

    /**
     * Starts a new serving session for {@code term}: the lease ({@link ReplicaLease}) renewed every
     * {@link #LEASE_RENEW_MS}, ending any earlier session; waits up to {@code waitMs} for the first renewal.
     *
     * @return true if the lease is held now
     */
    public synchronized boolean holdLease(long term, long waitMs) throws InterruptedException {
        return lease.hold(term, waitMs);
    }

    /** Stops renewing; the lease lapses. */
    public void releaseLease() {
        lease.release();
    }

    /** Null while this node holds the lease of {@code term}, else why not: the backing fence's question. */
    public String leaseProblem(long term) {
        return lease.problem(term);
    }

    @Override
    public void close() throws IOException {
        releaseLease();
        appender.shutdownNow();
        server.close();
    }
}
