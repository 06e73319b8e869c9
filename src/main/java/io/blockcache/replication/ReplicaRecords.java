package io.blockcache.replication;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The replicated log's entries (docs/SCALE.md, "Replication"): each entry a batch of records, written by the
 * serving node in the order the volume saw its requests. Big-endian; a batch is the Raft term in which its node
 * began serving, a count and its records (a batch whose term is not its log entry's term comes from a node that no
 * longer serves, and is ignored by every member):
 * <pre>
 *   record := type:u8 volume:utf seq:i64 start:i64 length:i64 [type-specific]
 *   WRITE  → length × 512 bytes of data
 *   ZEROES, TRIM → nothing
 *   PRUNE  → n:i32, n × (start:i64 length:i64 seq:i64)   the pieces now clean on the backing store (seq unused)
 * </pre>
 */
final class ReplicaRecords {
    static final byte WRITE = 1;
    static final byte ZEROES = 2;
    static final byte TRIM = 3;
    static final byte PRUNE = 4;

    /** One record; {@code data} for WRITE (from {@code dataOffset}), {@code prunes} for PRUNE, else null. */
    record Record(byte type, String volume, long seq, long start, long length, byte[] data, int dataOffset,
                  long[] prunes) {
    }

    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final DataOutputStream out = new DataOutputStream(bytes);
    private int count;

    /** Appends a WRITE of {@code length} sectors of {@code data} from {@code offset}. */
    void write(String volume, long seq, long start, long length, byte[] data, int offset) {
        header(WRITE, volume, seq, start, length);
        try {
            out.write(data, offset, (int) (length * SectorMap.SECTOR_BYTES));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    void zeroes(String volume, long seq, long start, long length) {
        header(ZEROES, volume, seq, start, length);
    }

    void trim(String volume, long seq, long start, long length) {
        header(TRIM, volume, seq, start, length);
    }

    /** Appends a PRUNE of the pieces {@code (start, length, seq)} given as triples. */
    void prune(String volume, long[] triples) {
        header(PRUNE, volume, 0, 0, 0);
        try {
            out.writeInt(triples.length / 3);
            for (long value : triples) {
                out.writeLong(value);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    int count() {
        return count;
    }

    int sizeBytes() {
        return bytes.size() + 12;
    }

    /** The batch as one log entry of a node serving since {@code term}. */
    byte[] toBytes(long term) {
        byte[] body = bytes.toByteArray();
        java.nio.ByteBuffer entry = java.nio.ByteBuffer.allocate(body.length + 12);
        entry.putLong(term).putInt(count).put(body);
        return entry.array();
    }

    /** The term of the node that wrote the entry {@code entry} ({@link #toBytes}), without decoding the rest. */
    static long termOf(byte[] entry) {
        return java.nio.ByteBuffer.wrap(entry, 0, 8).getLong();
    }

    /** A decoded entry: the serving node's term and its records. */
    record Batch(long term, List<Record> records) {
    }

    private void header(byte type, String volume, long seq, long start, long length) {
        try {
            out.writeByte(type);
            out.writeUTF(volume);
            out.writeLong(seq);
            out.writeLong(start);
            out.writeLong(length);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        count++;
    }

    /**
     * Decodes one entry. WRITE records share {@code entry} as their data.
     *
     * @throws IOException if the entry is truncated or holds an unknown record type
     */
    static Batch decode(byte[] entry) throws IOException {
        CountingInput counting = new CountingInput(entry);
        DataInputStream in = new DataInputStream(counting);
        long term = in.readLong();
        int n = in.readInt();
        if (n < 0 || n > entry.length / 26) {
            throw new IOException("replicated batch of " + n + " records runs past its entry");
        }
        List<Record> records = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            byte type = in.readByte();
            String volume = in.readUTF();
            long seq = in.readLong();
            long start = in.readLong();
            long length = in.readLong();
            switch (type) {
                case WRITE -> {
                    int offset = counting.position;
                    long dataBytes = length * SectorMap.SECTOR_BYTES;
                    if (length <= 0 || dataBytes > entry.length - offset) {
                        throw new IOException("replicated WRITE of " + length + " sectors runs past its entry");
                    }
                    in.skipNBytes(dataBytes);
                    records.add(new Record(type, volume, seq, start, length, entry, offset, null));
                }
                case ZEROES, TRIM -> records.add(new Record(type, volume, seq, start, length, null, 0, null));
                case PRUNE -> {
                    int pieces = in.readInt();
                    if (pieces < 0 || pieces > (entry.length - counting.position) / 24) {
                        throw new IOException("replicated PRUNE of " + pieces + " pieces runs past its entry");
                    }
                    long[] triples = new long[pieces * 3];
                    for (int j = 0; j < triples.length; j++) {
                        triples[j] = in.readLong();
                    }
                    records.add(new Record(type, volume, 0, 0, 0, null, 0, triples));
                }
                default -> throw new IOException("unknown replicated record type " + type);
            }
        }
        return new Batch(term, records);
    }

    /** A byte-array stream that says where it is. */
    private static final class CountingInput extends InputStream {
        private final byte[] bytes;
        private int position;

        CountingInput(byte[] bytes) {
            this.bytes = bytes;
        }

        @Override
        public int read() {
            return position < bytes.length ? bytes[position++] & 0xff : -1;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (position >= bytes.length) {
                return -1;
            }
            int n = Math.min(len, bytes.length - position);
            System.arraycopy(bytes, position, b, off, n);
            position += n;
            return n;
        }

        @Override
        public long skip(long n) {
            long k = Math.max(0, Math.min(n, bytes.length - position));
            position += (int) k;
            return k;
        }
    }
}
