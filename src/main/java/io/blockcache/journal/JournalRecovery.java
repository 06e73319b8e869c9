package io.blockcache.journal;

import io.blockcache.format.DecodeResult;
import io.blockcache.format.JournalEntry;
import io.blockcache.format.JournalRecord;
import io.blockcache.format.JournalScanner;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * Finds, in the bytes of the journal ring, what recovery must replay (docs/FORMAT.md §5.3). Pure: no I/O.
 *
 * <p>Steps: decode the first entry of every ring bucket; the one with the highest sequence names the newest
 * durable checkpoint's start ({@code checkpointSequence}); walk the hash chain from the bucket whose first
 * entry has the largest sequence not above it (or the oldest bucket if none); the last CheckpointDone met on
 * the walk names the checkpoint to load; every entry from its start sequence on is replayed.
 *
 * @param replay the entries to replay, in order (sequence at least the checkpoint's start)
 * @param checkpoint the checkpoint to load, or null if none was ever completed
 * @param next where the journal writer continues
 * @param walked every entry of the walk with its ring offset (to rebuild ring-bucket usage)
 * @param stopDescription why the walk ended (for `check` and logs)
 */
public record JournalRecovery(List<JournalEntry> replay, JournalRecord.CheckpointDone checkpoint,
                              JournalPosition next, List<JournalScanner.ScannedEntry> walked,
                              String stopDescription) {

    /** Where an entry header keeps its sequence (docs/FORMAT.md §5.1). */
    private static final int SEQUENCE_FIELD_OFFSET = 16;

    /** Thrown when the journal is corrupt in a way that loses durable data: recovery must stop. */
    public static final class CorruptJournalException extends Exception {
        public CorruptJournalException(String message) {
            super(message);
        }
    }

    /**
     * Recovers from the ring's bytes.
     *
     * @param ring the whole ring, {@code ringBuckets * bucketSizeBytes} bytes
     * @throws CorruptJournalException if durable entries are damaged or missing
     */
    public static JournalRecovery recover(byte[] ring, int bucketSizeBytes) throws CorruptJournalException {
        return recover(ring, bucketSizeBytes, new BitSet());
    }

    /**
     * Recovers from the ring's bytes, some 4 KiB blocks of which could not be read (latent sector errors; their
     * bytes are zero). Such a block is harmless outside the walk (older laps, entries before the replay start);
     * where the walk stops on one, it may hide durable entries, so recovery refuses with its ring offset.
     *
     * @param unreadableBlocks indexes of the unreadable 4 KiB blocks of the ring
     * @throws CorruptJournalException if durable entries are damaged, missing or unreadable
     */
    public static JournalRecovery recover(byte[] ring, int bucketSizeBytes, BitSet unreadableBlocks)
            throws CorruptJournalException {
        JournalRecovery recovered = recoverReadable(ring, bucketSizeBytes);
        // The walk stopped at `stop`: a newer durable entry, if any, would start there (or, if it did not fit, at
        // the next bucket's start) and lie within that bucket. An unreadable block there cannot be told apart
        // from a torn or never-written one. (Blocks the walk read are readable: a zeroed block stops the walk.)
        long stop = recovered.next().ringOffsetBytes();
        int blocksPerBucket = bucketSizeBytes / 4096;
        int ringBlocks = ring.length / 4096;
        int stopBlock = (int) (stop / 4096);
        int bucketEndBlock = (stopBlock / blocksPerBucket + 1) * blocksPerBucket;
        int unreadable = unreadableBlocks.nextSetBit(stopBlock);
        boolean inStopBucket = unreadable >= 0 && unreadable < bucketEndBlock;
        boolean atNextBucketStart = unreadableBlocks.get(bucketEndBlock % ringBlocks);
        if (inStopBucket || atNextBucketStart) {
            long at = (long) (inStopBucket ? unreadable : bucketEndBlock % ringBlocks) * 4096;
            throw new CorruptJournalException("journal block at ring byte " + at + " cannot be read (latent sector"
                    + " error) where the journal continues after sequence " + (recovered.next().nextSequence() - 1)
                    + ": durable entries may be there, so the cache will not open");
        }
        return recovered;
    }

    private static JournalRecovery recoverReadable(byte[] ring, int bucketSizeBytes) throws CorruptJournalException {
        int buckets = ring.length / bucketSizeBytes;
        long[] firstSequence = new long[buckets];
        JournalEntry newest = null;
        for (int b = 0; b < buckets; b++) {
            DecodeResult<JournalEntry> first = JournalEntry.decode(ring, b * bucketSizeBytes, bucketSizeBytes);
            if (first.isOk()) {
                firstSequence[b] = first.value().sequence();
                if (newest == null || first.value().sequence() > newest.sequence()) {
                    newest = first.value();
                }
            }
        }
        long[] newestAnywhere = newestValidEntry(ring, bucketSizeBytes);
        if (newest == null) {
            if (newestAnywhere != null) {
                throw new CorruptJournalException("journal is corrupt: " + damagedEntry(ring, bucketSizeBytes, 0)
                        + "no journal bucket starts with a valid entry, but entry sequence " + newestAnywhere[0]
                        + " at ring byte " + newestAnywhere[1] + " is valid");
            }
            return new JournalRecovery(List.of(), null, JournalPosition.fresh(), List.of(), "empty journal");
        }
        int startBucket = startBucket(firstSequence, newest.checkpointSequence());
        DecodeResult<JournalEntry> start = JournalEntry.decode(ring, startBucket * bucketSizeBytes, bucketSizeBytes);
        JournalScanner scanner = new JournalScanner(ring.length, bucketSizeBytes);
        JournalScanner.Scan scan = scanner.scan((offset, length) -> slice(ring, offset, length),
                (long) startBucket * bucketSizeBytes, start.value().sequence(), start.value().previousEntryCrc());
        if (!scan.stopReason().normalEnd()) {
            throw new CorruptJournalException("journal is corrupt: " + scan.message());
        }
        long walkedLast = scan.entries().isEmpty() ? 0
                : scan.entries().get(scan.entries().size() - 1).entry().sequence();
        if (newestAnywhere != null && newestAnywhere[0] > walkedLast) {
            // Entry N+1 is written only once N is durable, so a valid entry beyond the end of the chain means the
            // chain broke on durable entries, not on a torn tail.
            throw new CorruptJournalException("journal is corrupt: " + damagedEntry(ring, bucketSizeBytes, walkedLast)
                    + "the chain ends after sequence " + walkedLast + " (" + scan.message() + "), but entry sequence "
                    + newestAnywhere[0] + " at ring byte " + newestAnywhere[1] + " is valid");
        }
        JournalRecord.CheckpointDone checkpoint = null;
        for (JournalScanner.ScannedEntry scanned : scan.entries()) {
            for (JournalRecord record : scanned.entry().records()) {
                if (record instanceof JournalRecord.CheckpointDone done) {
                    checkpoint = done;
                }
            }
        }
        long replayFrom = checkpoint == null ? 0 : checkpoint.checkpointStartSequence();
        if (checkpoint == null && newest.checkpointSequence() > 0) {
            throw new CorruptJournalException("journal entries name checkpoint start " + newest.checkpointSequence()
                    + " but no CheckpointDone record for it survives in the walk from sequence "
                    + start.value().sequence());
        }
        if (!scan.entries().isEmpty() && scan.entries().get(0).entry().sequence() > Math.max(replayFrom, 1)) {
            throw new CorruptJournalException("journal walk starts at sequence " + scan.entries().get(0).entry()
                    .sequence() + " but replay must start at " + Math.max(replayFrom, 1) + ": entries are missing");
        }
        List<JournalEntry> replay = new ArrayList<>();
        for (JournalScanner.ScannedEntry scanned : scan.entries()) {
            if (scanned.entry().sequence() >= replayFrom) {
                replay.add(scanned.entry());
            }
        }
        long checkpointSequence = checkpoint == null ? 0 : checkpoint.checkpointStartSequence();
        JournalPosition next = new JournalPosition(scan.stopOffsetBytes(), scan.stopSequence(), scan.lastEntryCrc(),
                checkpointSequence);
        return new JournalRecovery(replay, checkpoint, next, scan.entries(), scan.message());
    }

    /**
     * The valid entry with the highest sequence at any 4 KiB position of the ring, as {sequence, ring offset},
     * or null. Costs one header check per block and a CRC per entry found: a few milliseconds per 8 MiB ring.
     */
    private static long[] newestValidEntry(byte[] ring, int bucketSizeBytes) {
        long[] newest = null;
        for (int offset = 0; offset < ring.length; offset += 4096) {
            int roomInBucket = bucketSizeBytes - offset % bucketSizeBytes;
            if (!JournalEntry.peekEntryBytes(ring, offset, roomInBucket).isOk()) {
                continue;
            }
            DecodeResult<JournalEntry> entry = JournalEntry.decode(ring, offset, roomInBucket);
            if (entry.isOk() && (newest == null || entry.value().sequence() > newest[0])) {
                newest = new long[] {entry.value().sequence(), offset};
            }
        }
        return newest;
    }

    /**
     * Names the damaged entry that breaks the chain: the entry header (magic intact) whose CRC fails and whose
     * sequence field claims the lowest sequence above {@code after}; empty if none can be found.
     */
    private static String damagedEntry(byte[] ring, int bucketSizeBytes, long after) {
        long bestSequence = Long.MAX_VALUE;
        int bestOffset = -1;
        ByteBuffer bytes = ByteBuffer.wrap(ring).order(ByteOrder.LITTLE_ENDIAN);
        for (int offset = 0; offset < ring.length; offset += 4096) {
            int roomInBucket = bucketSizeBytes - offset % bucketSizeBytes;
            if (!JournalEntry.peekEntryBytes(ring, offset, roomInBucket).isOk()
                    || JournalEntry.decode(ring, offset, roomInBucket).isOk()) {
                continue;
            }
            long claimed = bytes.getLong(offset + SEQUENCE_FIELD_OFFSET);
            if (claimed > after && claimed < bestSequence) {
                bestSequence = claimed;
                bestOffset = offset;
            }
        }
        return bestOffset < 0 ? "" : "entry sequence " + bestSequence + " at ring byte " + bestOffset
                + " is damaged (its CRC32C does not match); ";
    }

    /** The bucket whose first entry has the largest sequence not above {@code target}, else the oldest. */
    private static int startBucket(long[] firstSequence, long target) {
        int best = -1;
        int oldest = -1;
        for (int b = 0; b < firstSequence.length; b++) {
            long sequence = firstSequence[b];
            if (sequence == 0) {
                continue;
            }
            if (sequence <= target && (best < 0 || sequence > firstSequence[best])) {
                best = b;
            }
            if (oldest < 0 || sequence < firstSequence[oldest]) {
                oldest = b;
            }
        }
        return best >= 0 ? best : oldest;
    }

    private static byte[] slice(byte[] ring, long offset, int length) {
        byte[] out = new byte[length];
        System.arraycopy(ring, (int) offset, out, 0, Math.min(length, ring.length - (int) offset));
        return out;
    }
}
