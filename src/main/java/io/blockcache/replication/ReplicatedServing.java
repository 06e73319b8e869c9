package io.blockcache.replication;

import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import io.blockcache.loop.EventLoop;
import io.blockcache.volume.Volume;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Makes a node that has just become leader the server of its group's volumes: writes every piece of the replica into
 * the node's fresh cache (so the volume holds every write the old server acknowledged by a FLUSH or FUA, and any it
 * had appended since), flushes, and only then connects a {@link VolumeReplicator} to each volume, before the NBD
 * server accepts a client.
 *
 * <p>Thread rule: {@link #attach} on the loop thread; its callback on the loop thread.
 */
public final class ReplicatedServing {
    /** Replay writes in flight at once. */
    private static final int REPLAY_IN_FLIGHT = 16;

    private ReplicatedServing() {
    }

    /**
     * Replays and connects each of {@code volumes} (by export name). {@code done} gets OK, or the first error (the
     * node must then not serve).
     */
    public static void attach(EventLoop loop, Map<String, Volume> volumes, ReplicaNode node, long term,
                              IoCallback done) {
        attach(loop, volumes, node, node.replica(), term, done);
    }

    /** As above, with the log and the replica given apart (a simulated group in tests). */
    static void attach(EventLoop loop, Map<String, Volume> volumes, ReplicaLog log, DirtyReplica replica, long term,
                       IoCallback done) {
        attachNext(loop, volumes.entrySet().iterator(), log, replica, term, done);
    }

    private static void attachNext(EventLoop loop, Iterator<Map.Entry<String, Volume>> next, ReplicaLog log,
                                   DirtyReplica replica, long term, IoCallback done) {
        if (!next.hasNext()) {
            done.complete(IoResult.OK);
            return;
        }
        Map.Entry<String, Volume> entry = next.next();
        String name = entry.getKey();
        Volume volume = entry.getValue();
        List<SectorMap.Piece> pieces = new ArrayList<>();
        long highestSeq;
        synchronized (replica) {
            DirtyReplica.VolumeState state = replica.volume(name);
            state.pieces.all().forEach(pieces::add);
            highestSeq = state.highestSeq;
        }
        VolumeReplicator replicator = new VolumeReplicator(loop, name, volume, log, term, highestSeq);
        new Replay(volume, pieces, result -> {
            if (!result.ok()) {
                done.complete(result);
                return;
            }
            volume.flush(flushed -> {
                if (!flushed.ok()) {
                    done.complete(IoResult.error(IoStatus.IO_ERROR, "replay of " + name + ": " + flushed.message()));
                    return;
                }
                for (SectorMap.Piece p : pieces) {
                    replicator.adopt(p.start(), p.lengthSectors(), p.seq());
                    replicator.finished(p.seq(), p.start(), p.lengthSectors());
                }
                replicator.replayFlushed();
                volume.setReplicationHooks(replicator);
                attachNext(loop, next, log, replica, term, done);
            });
        }).start();
    }

    /** Writes the pieces into the volume, a bounded number at a time. */
    private static final class Replay {
        private final Volume volume;
        private final List<SectorMap.Piece> pieces;
        private final IoCallback done;
        private int nextIndex;
        private int inFlight;
        private String failure;

        Replay(Volume volume, List<SectorMap.Piece> pieces, IoCallback done) {
            this.volume = volume;
            this.pieces = pieces;
            this.done = done;
        }

        void start() {
            pump();
        }

        private void pump() {
            while (failure == null && inFlight < REPLAY_IN_FLIGHT && nextIndex < pieces.size()) {
                SectorMap.Piece p = pieces.get(nextIndex++);
                inFlight++;
                long offset = p.start() * SectorMap.SECTOR_BYTES;
                long bytes = p.lengthSectors() * SectorMap.SECTOR_BYTES;
                IoCallback back = this::finished;
                if (p.data() == null) {
                    volume.writeZeroes(offset, bytes, false, back);
                } else {
                    volume.write(offset, ByteBuffer.wrap(p.data(), p.dataOffset(), (int) bytes), false, back);
                }
            }
            if (inFlight == 0 && (failure != null || nextIndex == pieces.size())) {
                done.complete(failure == null ? IoResult.OK : IoResult.error(IoStatus.IO_ERROR, failure));
            }
        }

        private void finished(IoResult result) {
            inFlight--;
            if (!result.ok() && failure == null) {
                failure = "replay: " + result.message();
            }
            pump();
        }
    }
}
