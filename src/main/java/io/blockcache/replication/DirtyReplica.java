package io.blockcache.replication;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The replicated state every member of a group holds: for each volume, the data of every write not yet known to be
 * clean on the shared backing store, as the serving node's volume held it, request by request. Built by applying
 * the log's entries in order ({@link ReplicaRecords}); a new serving node writes it into its fresh cache before it
 * serves ({@link VolumeReplicator#replay}). A deterministic function of the log: every member that applied the same
 * entries holds the same pieces.
 *
 * <p>Thread rule: Ratis applies entries on one thread; readers from other threads synchronise on this object.
 */
final class DirtyReplica {
    private static final int SNAPSHOT_MAGIC = 0x42435250; // "BCRP"

    /** One volume's pieces and the highest request number seen. */
    static final class VolumeState {
        final SectorMap pieces = new SectorMap();
        long highestSeq;
    }

    private final Map<String, VolumeState> volumes = new TreeMap<>();

    /** Applies one decoded log entry. */
    synchronized void apply(List<ReplicaRecords.Record> records) {
        for (ReplicaRecords.Record r : records) {
            VolumeState state = volumes.computeIfAbsent(r.volume(), v -> new VolumeState());
            state.highestSeq = Math.max(state.highestSeq, r.seq());
            switch (r.type()) {
                // A copy of its own: pieces live until pruned, and a piece sharing its batch's array would keep the
                // whole batch (up to 4 MiB) alive for one surviving sector.
                case ReplicaRecords.WRITE -> state.pieces.put(r.start(), r.length(), r.seq(),
                        java.util.Arrays.copyOfRange(r.data(), r.dataOffset(),
                                r.dataOffset() + (int) (r.length() * SectorMap.SECTOR_BYTES)), 0);
                case ReplicaRecords.ZEROES -> state.pieces.put(r.start(), r.length(), r.seq(), null, 0);
                case ReplicaRecords.TRIM -> state.pieces.remove(r.start(), r.length());
                case ReplicaRecords.PRUNE -> {
                    long[] t = r.prunes();
                    for (int i = 0; i < t.length; i += 3) {
                        state.pieces.removeIfSeq(t[i], t[i + 1], t[i + 2]);
                    }
                }
                default -> throw new IllegalArgumentException("record type " + r.type());
            }
        }
    }

    /** The state of {@code volume} (empty if the log never named it). Callers synchronise on this object. */
    synchronized VolumeState volume(String volume) {
        return volumes.computeIfAbsent(volume, v -> new VolumeState());
    }

    /** Bytes of replicated data held, all volumes. */
    synchronized long dataBytes() {
        long total = 0;
        for (VolumeState state : volumes.values()) {
            total += state.pieces.dataBytes();
        }
        return total;
    }

    /** Pieces held, all volumes. */
    synchronized long pieceCount() {
        long total = 0;
        for (VolumeState state : volumes.values()) {
            total += state.pieces.pieceCount();
        }
        return total;
    }

    /** Writes every volume's pieces (a Raft snapshot: the log before it may then be dropped). */
    synchronized void writeTo(DataOutputStream out) throws IOException {
        out.writeInt(SNAPSHOT_MAGIC);
        out.writeInt(volumes.size());
        for (Map.Entry<String, VolumeState> e : volumes.entrySet()) {
            out.writeUTF(e.getKey());
            out.writeLong(e.getValue().highestSeq);
            out.writeInt(e.getValue().pieces.pieceCount());
            for (SectorMap.Piece p : e.getValue().pieces.all()) {
                out.writeLong(p.start());
                out.writeLong(p.lengthSectors());
                out.writeLong(p.seq());
                out.writeBoolean(p.data() != null);
                if (p.data() != null) {
                    out.write(p.data(), p.dataOffset(), (int) (p.lengthSectors() * SectorMap.SECTOR_BYTES));
                }
            }
        }
    }

    /** Replaces everything with what {@link #writeTo} wrote. */
    synchronized void readFrom(DataInputStream in) throws IOException {
        if (in.readInt() != SNAPSHOT_MAGIC) {
            throw new IOException("not a blockcache replica snapshot");
        }
        volumes.clear();
        int count = in.readInt();
        for (int v = 0; v < count; v++) {
            VolumeState state = new VolumeState();
            volumes.put(in.readUTF(), state);
            state.highestSeq = in.readLong();
            int pieces = in.readInt();
            for (int i = 0; i < pieces; i++) {
                long start = in.readLong();
                long length = in.readLong();
                long seq = in.readLong();
                byte[] data = null;
                if (in.readBoolean()) {
                    data = in.readNBytes((int) (length * SectorMap.SECTOR_BYTES));
                }
                state.pieces.put(start, length, seq, data, 0);
            }
        }
    }
}
