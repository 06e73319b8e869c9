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
 * <p>Steps: verify the first entry of every ring bucket (header and CRC; its records are decoded only if the walk
 * reaches it); the one with the highest sequence names the newest durable checkpoint's start
 * ({@code checkpointSequence}); walk the hash chain from the bucket whose first
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
        Steps steps = new Steps(ring, bucketSizeBytes, unreadableBlocks);
        while (!steps.step()) {
            // all at once: check and tests; open takes the same steps as loop tasks (MetadataWalker)
        }
        return steps.result();
    }

    /**
     * {@link #recover(byte[], int, BitSet)} in bounded steps, so that recovery can yield the loop between them
     * (docs/ARCHITECTURE.md §4.6): each step looks at most at about one journal bucket's worth of the ring — the
     * header and CRC of one bucket's first entry, the headers and CRCs of the entries that start in
     * {@value #BLOCKS_PER_STEP} 4 KiB blocks, one entry of the hash-chain walk (records decoded), or the records of
     * {@value #ENTRIES_PER_SEARCH_STEP} walked entries in the search for the last CheckpointDone. The steps and their
     * order are those of the one-call form, which is built on them. Pure: no I/O. Thread rule: one thread at a time.
     */
    public static final class Steps {
        /**
         * 4 KiB blocks looked at per step of the search for the newest valid entry: 64 KiB of ring, plus the CRC of
         * any entry that starts there. 64 blocks a step took 3.5-4 ms of loop time in a fresh JVM after a crash
         * (docs/BENCHMARKS.md "Recovery"), where the 10 ms bound leaves little room for a preempted loop.
         */
        static final int BLOCKS_PER_STEP = 16;
        /**
         * Walked entries searched per step for the last CheckpointDone record. A full 256 KiB entry holds about
         * 8,000 records, objects the walk allocated over many steps, so looking at each costs a cache miss: in one
         * step, the 1.9 M records of a crashed 10 M-extent cache kept the loop for 30 ms (docs/BENCHMARKS.md,
         * Recovery); four entries are about a millisecond.
         */
        static final int ENTRIES_PER_SEARCH_STEP = 4;

        private final byte[] ring;
        private final int bucketSizeBytes;
        private final BitSet unreadableBlocks;
        private final int buckets;
        private final long[] firstSequence;
        private JournalEntry.Header newest;
        private int bucket;
        private int block;
        private long[] newestAnywhere;
        private JournalEntry.Header start;
        private JournalScanner.Walk walk;
        private JournalScanner.Scan scan;
        private int searchedEntries;
        private JournalRecord.CheckpointDone lastCheckpoint;
        private JournalRecovery result;

        /** Starts a recovery from the ring's bytes; see {@link #recover(byte[], int, BitSet)}. */
        public Steps(byte[] ring, int bucketSizeBytes, BitSet unreadableBlocks) {
            this.ring = ring;
            this.bucketSizeBytes = bucketSizeBytes;
            this.unreadableBlocks = unreadableBlocks;
            this.buckets = ring.length / bucketSizeBytes;
            this.firstSequence = new long[buckets];
        }

        /**
         * Takes one bounded step.
         *
         * @return true once the recovery is complete ({@link #result} answers)
         * @throws CorruptJournalException if durable entries are damaged, missing or unreadable
         */
        public boolean step() throws CorruptJournalException {
            if (result != null) {
                return true;
            }
            if (bucket < buckets) {
                // The header and CRC only: decoding the records too (up to ~8,000 of them in a full entry) made
                // this step take up to 6.7 ms of loop time after a crash (docs/BENCHMARKS.md "Recovery").
                DecodeResult<JournalEntry.Header> first = JournalEntry.decodeHeader(ring, bucket * bucketSizeBytes,
                        bucketSizeBytes);
                if (first.isOk()) {
                    firstSequence[bucket] = first.value().sequence();
                    if (newest == null || first.value().sequence() > newest.sequence()) {
                        newest = first.value();
                    }
                }
                bucket++;
                return false;
            }
            if (block < ring.length / 4096) {
                int end = Math.min(ring.length / 4096, block + BLOCKS_PER_STEP);
                newestAnywhere = newestValidEntry(ring, bucketSizeBytes, block, end, newestAnywhere);
                block = end;
                return false;
            }
            if (walk == null) {
                if (newest == null) {
                    if (newestAnywhere != null) {
                        throw new CorruptJournalException("journal is corrupt: "
                                + damagedEntry(ring, bucketSizeBytes, 0) + "no journal bucket starts with a valid"
                                + " entry, but entry sequence " + newestAnywhere[0] + " at ring byte "
                                + newestAnywhere[1] + " is valid");
                    }
                    result = checkUnreadable(new JournalRecovery(List.of(), null, JournalPosition.fresh(), List.of(),
                            "empty journal"), ring, bucketSizeBytes, unreadableBlocks);
                    return true;
                }
                int startBucket = startBucket(firstSequence, newest.checkpointSequence());
                // Verified in the first phase; the walk decodes its records (a record that does not decode stops
                // the walk as BAD_RECORD, which refuses).
                start = JournalEntry.decodeHeader(ring, startBucket * bucketSizeBytes, bucketSizeBytes).value();
                walk = new JournalScanner(ring.length, bucketSizeBytes).walk((offset, length) -> slice(ring, offset,
                        length), (long) startBucket * bucketSizeBytes, start.sequence(), start.previousEntryCrc());
                return false;
            }
            if (scan == null) {
                scan = walk.step(1);
                return false;
            }
            if (searchedEntries < scan.entries().size()) {
                int end = Math.min(scan.entries().size(), searchedEntries + ENTRIES_PER_SEARCH_STEP);
                for (JournalScanner.ScannedEntry scanned : scan.entries().subList(searchedEntries, end)) {
                    for (JournalRecord record : scanned.entry().records()) {
                        if (record instanceof JournalRecord.CheckpointDone done) {
                            lastCheckpoint = done;
                        }
                    }
                }
                searchedEntries = end;
                return false;
            }
            result = checkUnreadable(finish(scan, lastCheckpoint), ring, bucketSizeBytes, unreadableBlocks);
            return true;
        }

        /** The recovery; only after {@link #step} returned true. */
        public JournalRecovery result() {
            if (result == null) {
                throw new IllegalStateException("journal recovery is not complete");
            }
            return result;
        }

        /** Ends the recovery from the walk and the last CheckpointDone record it holds (null if none). */
        private JournalRecovery finish(JournalScanner.Scan scan, JournalRecord.CheckpointDone checkpoint)
                throws CorruptJournalException {
            if (!scan.stopReason().normalEnd()) {
                throw new CorruptJournalException("journal is corrupt: " + scan.message());
            }
            long walkedLast = scan.entries().isEmpty() ? 0
                    : scan.entries().get(scan.entries().size() - 1).entry().sequence();
            if (newestAnywhere != null && newestAnywhere[0] > walkedLast) {
                // Entry N+1 is written only once N is durable, so a valid entry beyond the end of the chain means
                // the chain broke on durable entries, not on a torn tail.
                throw new CorruptJournalException("journal is corrupt: " + damagedEntry(ring, bucketSizeBytes,
                        walkedLast) + "the chain ends after sequence " + walkedLast + " (" + scan.message()
                        + "), but entry sequence " + newestAnywhere[0] + " at ring byte " + newestAnywhere[1]
                        + " is valid");
            }
            long replayFrom = checkpoint == null ? 0 : checkpoint.checkpointStartSequence();
            if (checkpoint == null && newest.checkpointSequence() > 0) {
                throw new CorruptJournalException("journal entries name checkpoint start "
                        + newest.checkpointSequence() + " but no CheckpointDone record for it survives in the walk"
                        + " from sequence " + start.sequence());
            }
            if (!scan.entries().isEmpty() && scan.entries().get(0).entry().sequence() > Math.max(replayFrom, 1)) {
                throw new CorruptJournalException("journal walk starts at sequence " + scan.entries().get(0).entry()
                        .sequence() + " but replay must start at " + Math.max(replayFrom, 1)
                        + ": entries are missing");
            }
            List<JournalEntry> replay = new ArrayList<>();
            for (JournalScanner.ScannedEntry scanned : scan.entries()) {
                if (scanned.entry().sequence() >= replayFrom) {
                    replay.add(scanned.entry());
                }
            }
            long checkpointSequence = checkpoint == null ? 0 : checkpoint.checkpointStartSequence();
            JournalPosition next = new JournalPosition(scan.stopOffsetBytes(), scan.stopSequence(),
                    scan.lastEntryCrc(), checkpointSequence);
            return new JournalRecovery(replay, checkpoint, next, scan.entries(), scan.message());
        }
    }

    /**
     * The walk stopped at {@code recovered.next()}: a newer durable entry, if any, would start there (or, if it did
     * not fit, at the next bucket's start) and lie within that bucket. An unreadable block there cannot be told
     * apart from a torn or never-written one. (Blocks the walk read are readable: a zeroed block stops the walk.)
     */
    private static JournalRecovery checkUnreadable(JournalRecovery recovered, byte[] ring, int bucketSizeBytes,
                                                   BitSet unreadableBlocks) throws CorruptJournalException {
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

    /**
     * The valid entry with the highest sequence at the 4 KiB positions {@code [fromBlock, toBlock)} of the ring,
     * or {@code newest} if none is newer, as {sequence, ring offset}, or null. Costs one header check per block
     * and a CRC per entry found (its records are not decoded): a few milliseconds per 8 MiB ring.
     */
    private static long[] newestValidEntry(byte[] ring, int bucketSizeBytes, int fromBlock, int toBlock,
                                           long[] newest) {
        long[] found = newest;
        for (int offset = fromBlock * 4096; offset < toBlock * 4096; offset += 4096) {
            int roomInBucket = bucketSizeBytes - offset % bucketSizeBytes;
            DecodeResult<JournalEntry.Header> entry = JournalEntry.decodeHeader(ring, offset, roomInBucket);
            if (entry.isOk() && (found == null || entry.value().sequence() > found[0])) {
                found = new long[] {entry.value().sequence(), offset};
            }
        }
        return found;
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
