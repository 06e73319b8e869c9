package io.blockcache.journal;

import io.blockcache.device.IoCallback;
import io.blockcache.format.ByteLayout;
import io.blockcache.format.JournalEntry;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One journal entry of {@link JournalWriter} between its first record and its durable write: the records, encoded as
 * they are appended after the room its header takes, and who waits for them. Reused once written (nothing
 * allocated per record): its array grows to the largest entry it held and the entry is sealed and written from it in
 * place.
 *
 * <p>Thread rule: the cache's loop thread.
 */
final class OpenEntry {
    long sequence;
    final List<IoCallback> waiters = new ArrayList<>(2);
    /** Set to write it without waiting for the journal delay (full, or a commit asked for it). */
    boolean due;
    private byte[] bytes = new byte[4096];
    /** Little-endian over {@link #bytes}; its position is where the next record goes. */
    private ByteBuffer records = ByteLayout.littleEndian(bytes);
    private int recordCount;
    /** Set by {@link #seal}: the padded size written. */
    private int entryBytes;

    /** Empties it for entry {@code sequence}. */
    OpenEntry reset(long sequence) {
        this.sequence = sequence;
        waiters.clear();
        records.clear().position(JournalEntry.HEADER_BYTES);
        recordCount = 0;
        entryBytes = 0;
        due = false;
        return this;
    }

    /** Header and records so far, unpadded. */
    int encodedBytes() {
        return records.position();
    }

    /** The buffer to encode the next record of {@code recordBytes} into, grown so that it fits. */
    ByteBuffer room(int recordBytes) {
        grow(encodedBytes() + recordBytes);
        return records;
    }

    /** Counts the record just encoded into {@link #room}. */
    void recordAppended() {
        recordCount++;
    }

    /**
     * Writes the header, padding and CRC in place ({@link JournalEntry#seal}) and returns the entry's bytes, valid
     * until this object is reset.
     */
    ByteBuffer seal(long checkpointSequence, int previousEntryCrc) {
        entryBytes = roundUp(encodedBytes());
        grow(entryBytes);
        JournalEntry.seal(bytes, sequence, checkpointSequence, previousEntryCrc, recordCount,
                encodedBytes() - JournalEntry.HEADER_BYTES, entryBytes);
        return ByteBuffer.wrap(bytes, 0, entryBytes);
    }

    /** The padded size written; after {@link #seal}. */
    int entryBytes() {
        return entryBytes;
    }

    /** The CRC the sealed entry carries, which the next entry chains to; after {@link #seal}. */
    int storedCrc() {
        return JournalEntry.storedCrc(bytes);
    }

    private void grow(int totalBytes) {
        if (totalBytes > bytes.length) {
            int position = records.position();
            bytes = Arrays.copyOf(bytes, Math.max(roundUp(totalBytes), Math.min(bytes.length * 2, 1 << 30)));
            records = ByteLayout.littleEndian(bytes);
            records.position(position);
        }
    }

    /** {@code bytes} rounded up to whole 4 KiB blocks, as entries are written. */
    static int roundUp(int bytes) {
        return (bytes + 4095) & ~4095;
    }
}
