package io.blockcache.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class ReplicaRecordsTest {
    @Test
    void aBatchDecodesToItsRecordsAndAppliesToTheReplica() throws IOException {
        // Proves: every record type round-trips through an entry, and applying it gives the replica the pieces a
        // serving node meant: the write's bytes, a zero piece, a trim's hole, and a prune of the named request only.
        byte[] data = new byte[4 * 512];
        Arrays.fill(data, (byte) 0x5A);
        ReplicaRecords batch = new ReplicaRecords();
        batch.write("v", 1, 100, 4, data, 0);
        batch.zeroes("v", 2, 200, 8);
        batch.write("v", 3, 300, 2, data, 512);
        batch.trim("v", 4, 101, 1);
        batch.prune("v", new long[] {300, 2, 3, 200, 8, 99});
        ReplicaRecords.Batch decoded = ReplicaRecords.decode(batch.toBytes(7));
        assertThat(decoded.term()).isEqualTo(7);
        assertThat(decoded.records()).extracting(ReplicaRecords.Record::type)
                .containsExactly(ReplicaRecords.WRITE, ReplicaRecords.ZEROES, ReplicaRecords.WRITE, ReplicaRecords.TRIM,
                        ReplicaRecords.PRUNE);

        DirtyReplica replica = new DirtyReplica();
        replica.apply(decoded.records());
        DirtyReplica.VolumeState state = replica.volume("v");
        assertThat(state.highestSeq).isEqualTo(4);
        assertThat(state.pieces.overlapping(0, 1000)).extracting(SectorMap.Piece::start, SectorMap.Piece::end)
                .containsExactly(tuple(100L, 101L),
                        tuple(102L, 104L),
                        tuple(200L, 208L)); // 300 pruned; 200 kept (seq 99 named)
        SectorMap.Piece first = state.pieces.overlapping(100, 101).get(0);
        assertThat(first.data()[first.dataOffset()]).isEqualTo((byte) 0x5A);
    }

    @Test
    void aSnapshotRestoresTheSamePieces() throws IOException {
        // Proves: the Raft snapshot of the replica reads back as the same pieces, data and highest request number.
        ReplicaRecords batch = new ReplicaRecords();
        byte[] data = new byte[3 * 512];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) i;
        }
        batch.write("a", 5, 10, 3, data, 0);
        batch.zeroes("b", 6, 0, 16);
        DirtyReplica replica = new DirtyReplica();
        replica.apply(ReplicaRecords.decode(batch.toBytes(1)).records());
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        replica.writeTo(new DataOutputStream(bytes));

        DirtyReplica restored = new DirtyReplica();
        restored.readFrom(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
        assertThat(restored.dataBytes()).isEqualTo(replica.dataBytes());
        assertThat(restored.volume("a").highestSeq).isEqualTo(5);
        SectorMap.Piece piece = restored.volume("a").pieces.overlapping(10, 13).get(0);
        assertThat(Arrays.copyOfRange(piece.data(), piece.dataOffset(), piece.dataOffset() + data.length))
                .isEqualTo(data);
        assertThat(restored.volume("b").pieces.overlapping(0, 16).get(0).data()).isNull();
    }

    @Test
    void aDamagedEntryIsRefusedNamingWhatIsWrong() {
        // Proves: an entry whose write runs past its end, or with an unknown record type, is refused, not applied.
        ReplicaRecords batch = new ReplicaRecords();
        batch.write("v", 1, 0, 4, new byte[2048], 0);
        byte[] entry = batch.toBytes(1);
        assertThatThrownBy(() -> ReplicaRecords.decode(Arrays.copyOf(entry, entry.length - 100)))
                .isInstanceOf(IOException.class).hasMessageContaining("runs past its entry");
        byte[] unknown = entry.clone();
        unknown[12] = 42; // the first record's type
        assertThatThrownBy(() -> ReplicaRecords.decode(unknown)).isInstanceOf(IOException.class)
                .hasMessageContaining("unknown replicated record type 42");
    }
}
