package io.blockcache.engine;

import io.blockcache.format.DecodeResult;
import io.blockcache.format.JournalEntry;
import io.blockcache.format.JournalRecord;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.function.DoubleConsumer;

/**
 * What salvage can still trust of a journal ring that recovery refuses: every entry that verifies, wherever it lies,
 * chained back from the newest one (docs/FORMAT.md §5.3), and the sequences that are missing in between.
 *
 * <p>Unlike {@link io.blockcache.journal.JournalRecovery}, which walks from one start and stops at the first break,
 * this tries every 4 KiB position of the ring with the same decoder ({@link JournalEntry#decode}), so a damaged entry
 * costs that entry and not everything after it. The newest valid entry is the tail (a torn entry after it was never
 * acknowledged); going down, an entry is taken only if its CRC is the {@code previousEntryCrc} of the one above it,
 * and a sequence with no such entry is lost: its records are unknown. Pure: no I/O. Thread rule: one thread.
 *
 * @param entries the trusted entries by sequence, each with its ring offset
 * @param lost sequence ranges {@code [first, last]} (inclusive) below the newest entry whose entry is lost, descending
 * @param notes what was found damaged, for the report
 * @param damaged how many entry headers (magic, version, size) were found whose entry does not verify
 */
record SalvageJournal(NavigableMap<Long, Found> entries, List<long[]> lost, List<String> notes, int damaged) {
    /** Where an entry header keeps its sequence (docs/FORMAT.md §5.1): read from damaged entries for the report. */
    private static final int SEQUENCE_FIELD_OFFSET = 16;

    /** One verified entry and where it starts in the ring. */
    record Found(long ringOffsetBytes, JournalEntry entry) {
    }

    /** The sequence of the newest trusted entry, or 0 if the ring holds none. */
    long newestSequence() {
        return entries.isEmpty() ? 0 : entries.lastKey();
    }

    /** True if no entry with a sequence in {@code [from, to]} is lost, and entries reach down to {@code from}. */
    boolean complete(long from, long to) {
        if (entries.isEmpty() || entries.firstKey() > from) {
            return to < from;
        }
        for (long[] range : lost) {
            if (range[0] <= to && range[1] >= from) {
                return false;
            }
        }
        return true;
    }

    /** Every CheckpointDone record of the trusted entries, newest checkpoint first. */
    List<JournalRecord.CheckpointDone> checkpoints() {
        TreeMap<Long, JournalRecord.CheckpointDone> byStart = new TreeMap<>();
        for (Found found : entries.values()) {
            for (JournalRecord record : found.entry().records()) {
                if (record instanceof JournalRecord.CheckpointDone done) {
                    byStart.put(done.checkpointStartSequence(), done);
                }
            }
        }
        return new ArrayList<>(byStart.descendingMap().values());
    }

    /** Scans {@code ring} ({@code ringBuckets * bucketSizeBytes} bytes); reports the fraction scanned. */
    static SalvageJournal scan(byte[] ring, int bucketSizeBytes, DoubleConsumer progress) {
        TreeMap<Long, List<Found>> bySequence = new TreeMap<>();
        List<String> notes = new ArrayList<>();
        int damaged = 0;
        long claimedMax = 0;
        int offset = 0;
        while (offset < ring.length) {
            int roomInBucket = bucketSizeBytes - offset % bucketSizeBytes;
            DecodeResult<JournalEntry> decoded = JournalEntry.decode(ring, offset, roomInBucket);
            if (decoded.isOk()) {
                bySequence.computeIfAbsent(decoded.value().sequence(), s -> new ArrayList<>())
                        .add(new Found(offset, decoded.value()));
                offset += decoded.value().entryBytes();
            } else {
                if (JournalEntry.peekEntryBytes(ring, offset, roomInBucket).isOk()) {
                    long claimed = ByteBuffer.wrap(ring).order(ByteOrder.LITTLE_ENDIAN)
                            .getLong(offset + SEQUENCE_FIELD_OFFSET);
                    notes.add("journal entry at ring byte " + offset + " (its header claims sequence " + claimed
                            + ") is damaged: " + decoded.error());
                    damaged++;
                    claimedMax = Math.max(claimedMax, claimed);
                }
                offset += 4096;
            }
            if ((offset & ((1 << 20) - 1)) == 0) {
                progress.accept((double) offset / ring.length);
            }
        }
        progress.accept(1);
        return chain(bySequence, notes, damaged, claimedMax);
    }

    /** Follows the hash chain down from the newest entry; see the class comment. */
    private static SalvageJournal chain(TreeMap<Long, List<Found>> bySequence, List<String> notes, int damaged,
                                        long claimedMax) {
        TreeMap<Long, Found> entries = new TreeMap<>();
        List<long[]> lost = new ArrayList<>();
        Integer expectedCrc = null;
        long above = -1;
        for (Map.Entry<Long, List<Found>> candidates : bySequence.descendingMap().entrySet()) {
            long sequence = candidates.getKey();
            if (above >= 0 && sequence < above - 1) {
                lost.add(new long[] {sequence + 1, above - 1});
                expectedCrc = null;
            }
            Found taken = null;
            for (Found found : candidates.getValue()) {
                if (expectedCrc == null || found.entry().entryCrc() == expectedCrc) {
                    taken = found;
                    break;
                }
            }
            above = sequence;
            if (taken == null) {
                // A valid entry of this sequence that is not the predecessor of the one above: not the durable one.
                lost.add(new long[] {sequence, sequence});
                notes.add("journal entry sequence " + sequence + " at ring byte "
                        + candidates.getValue().get(0).ringOffsetBytes() + " does not chain to sequence "
                        + (sequence + 1) + ": not used");
                expectedCrc = null;
                continue;
            }
            entries.put(sequence, taken);
            expectedCrc = taken.entry().previousEntryCrc();
        }
        long newest = entries.isEmpty() ? 0 : entries.lastKey();
        if (claimedMax > newest) {
            notes.add("a damaged entry claims sequence " + claimedMax + ", above the newest that verifies (" + newest
                    + "): it may be a torn last write (never acknowledged, as open also takes it) or a lost entry:"
                    + " salvage cannot tell, and does not list what it may have held");
        }
        return new SalvageJournal(entries, lost, notes, damaged);
    }
}
