package io.blockcache.replication;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.CompletableFuture;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.util.LifeCycle;

/**
 * The Raft state machine of a replication group: applies each committed entry to the {@link DirtyReplica}, and saves
 * it as a snapshot file so that Ratis may drop the log before it (and send it to a member too far behind).
 *
 * <p>Thread rule: Ratis calls it (apply on one thread, snapshots on another, hence {@link DirtyReplica}'s lock).
 */
final class ReplicaStateMachine extends BaseStateMachine {
    /** The reply to a batch applied. */
    static final Message APPLIED = Message.valueOf("applied");
    /** The reply to a batch skipped: its node no longer serves. */
    static final Message STALE = Message.valueOf("stale");

    private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
    private final DirtyReplica replica = new DirtyReplica();

    DirtyReplica replica() {
        return replica;
    }

    @Override
    public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage raftStorage) throws IOException {
        getLifeCycle().startAndTransition(() -> {
            super.initialize(server, groupId, raftStorage);
            storage.init(raftStorage);
            load(storage.loadLatestSnapshot());
        });
    }

    /**
     * Ratis pauses the state machine before it installs a snapshot sent by the leader (a member too far behind), and
     * then asks {@link #reinitialize} to take it up: the lifecycle must say PAUSED in between, or Ratis shuts the
     * member down.
     */
    @Override
    public synchronized void pause() {
        if (getLifeCycleState() == LifeCycle.State.RUNNING) {
            getLifeCycle().transition(LifeCycle.State.PAUSING);
            getLifeCycle().transition(LifeCycle.State.PAUSED);
        }
    }

    /** Loads the newest snapshot (one just installed) in place of what the replica held. */
    @Override
    public synchronized void reinitialize() throws IOException {
        if (getLifeCycleState() == LifeCycle.State.PAUSED) {
            getLifeCycle().transition(LifeCycle.State.STARTING);
            load(storage.loadLatestSnapshot());
            getLifeCycle().transition(LifeCycle.State.RUNNING);
        }
    }

    @Override
    public StateMachineStorage getStateMachineStorage() {
        return storage;
    }

    @Override
    public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
        LogEntryProto entry = trx.getLogEntry();
        ReplicaRecords.Batch batch;
        try {
            batch = ReplicaRecords.decode(entry.getStateMachineLogEntry().getLogData().toByteArray());
        } catch (IOException e) {
            // A committed entry that does not decode is a bug or a damaged log: no member may go on past it.
            return CompletableFuture.failedFuture(e);
        }
        // A batch from a node that began serving in an earlier term reached the log after another node took over:
        // that node's volume state is not the one this log describes any more. Every member skips it alike, and the
        // sender learns it from the reply, so nothing it covers is acknowledged.
        boolean current = batch.term() == entry.getTerm();
        if (current) {
            replica.apply(batch.records());
        }
        updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
        return CompletableFuture.completedFuture(current ? APPLIED : STALE);
    }

    @Override
    public long takeSnapshot() throws IOException {
        TermIndex last;
        File file;
        File tmp;
        synchronized (replica) {
            last = getLastAppliedTermIndex();
            if (last == null || last.getIndex() < 0) {
                return -1;
            }
            file = storage.getSnapshotFile(last.getTerm(), last.getIndex());
            tmp = new File(file.getPath() + ".tmp");
            try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(
                    Files.newOutputStream(tmp.toPath()), 1 << 20))) {
                replica.writeTo(out);
            }
        }
        try (var channel = java.nio.channels.FileChannel.open(tmp.toPath(), java.nio.file.StandardOpenOption.WRITE)) {
            channel.force(true); // the snapshot replaces log entries: it must be on the disk before they go
        }
        Files.move(tmp.toPath(), file.toPath(), StandardCopyOption.ATOMIC_MOVE);
        // The digest goes with the file when Ratis sends the snapshot to a member far behind, which checks it.
        org.apache.ratis.io.MD5Hash digest = org.apache.ratis.util.MD5FileUtil.computeAndSaveMd5ForFile(file);
        storage.updateLatestSnapshot(new SingleFileSnapshotInfo(
                new org.apache.ratis.server.storage.FileInfo(file.toPath(), digest), last));
        return last.getIndex();
    }

    private void load(SingleFileSnapshotInfo snapshot) throws IOException {
        if (snapshot == null) {
            return;
        }
        File file = snapshot.getFile().getPath().toFile();
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file.toPath()),
                1 << 20))) {
            replica.readFrom(in);
        }
        setLastAppliedTermIndex(snapshot.getTermIndex());
    }
}
