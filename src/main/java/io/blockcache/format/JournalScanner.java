package io.blockcache.format;

import io.blockcache.loop.Checks;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Walks the journal ring forward from a known entry and returns the valid entries in order and why it
 * stopped. Pure: all bytes come from a {@link RingReader}; no I/O, no threads.
 *
 * <p>Rules it relies on (docs/FORMAT.md): entries are 4 KiB aligned and never straddle a bucket end; when an
 * entry does not fit in the rest of its bucket the writer starts it at the next bucket, so at each step
 * the scanner tries the current offset and then the next bucket start. Entry N+1 is submitted only after
 * entry N is durable, so a damaged entry followed by a valid N+1 is media corruption in the middle of the
 * journal ({@link StopReason#CORRUPT_ENTRY}), never a torn tail.
 */
public final class JournalScanner {
    /** Reads {@code lengthBytes} of the ring starting at {@code ringOffsetBytes} into a new array. */
    @FunctionalInterface
    public interface RingReader {
        /** The range never crosses the ring end. */
        byte[] read(long ringOffsetBytes, int lengthBytes);
    }

    /** Why a scan stopped. */
    public enum StopReason {
        /** No entry header at the next position (never written, or zeroed): the normal end. */
        END_NO_ENTRY(true),
        /** The next entry's CRC does not match and nothing valid follows it: a torn final write. */
        TORN_ENTRY(true),
        /** The next entry is older than expected: an entry from the previous lap of the ring. */
        STALE_SEQUENCE(true),
        /** Right sequence but wrong previousEntryCrc: an entry that outlived a torn one before it. */
        CHAIN_MISMATCH(true),
        /** The whole ring was walked once. */
        RING_WRAPPED(true),
        /** The next entry is newer than expected: entries are missing. Corruption. */
        SEQUENCE_GAP(false),
        /** A damaged entry is followed by its valid successor: corruption of durable journal. */
        CORRUPT_ENTRY(false),
        /** The entry's CRC is valid but a record cannot be decoded: a writer bug. */
        BAD_RECORD(false);

        private final boolean normalEnd;

        StopReason(boolean normalEnd) {
            this.normalEnd = normalEnd;
        }

        /** What this stop means, for an operator reading {@code check}. */
        public String plainWords() {
            return switch (this) {
                case END_NO_ENTRY -> "nothing was written there yet";
                case TORN_ENTRY -> "a write that a crash cut short (nothing after it)";
                case STALE_SEQUENCE -> "an entry left from the ring's previous lap";
                case CHAIN_MISMATCH -> "an entry that outlived a write a crash cut short";
                case RING_WRAPPED -> "the whole ring was read";
                case SEQUENCE_GAP -> "entries are missing";
                case CORRUPT_ENTRY -> "a damaged entry with a valid one after it";
                case BAD_RECORD -> "an entry whose record cannot be decoded";
            };
        }

        /** True if this is how a journal normally ends after a crash; false means recovery must fail-stop. */
        public boolean normalEnd() {
            return normalEnd;
        }
    }

    /** A valid entry and where it lies. @param ringOffsetBytes its offset in the ring @param entry it */
    public record ScannedEntry(long ringOffsetBytes, JournalEntry entry) {
    }

    /**
     * The result of a scan.
     *
     * @param entries valid entries in sequence order
     * @param stopReason why the walk ended
     * @param stopOffsetBytes ring offset where the next entry was expected (the writer continues here)
     * @param stopSequence the sequence that was expected there
     * @param lastEntryCrc CRC of the last valid entry (the previousEntryCrc of the next), or the start value
     * @param error the decode error behind the stop, offsets relative to the ring; null for clean ends
     * @param message what was expected and what was found, with sequence and ring byte offset
     */
    public record Scan(List<ScannedEntry> entries, StopReason stopReason, long stopOffsetBytes, long stopSequence,
            int lastEntryCrc, DecodeError error, String message) {
        public Scan {
            entries = List.copyOf(entries);
            Objects.requireNonNull(stopReason, "stopReason");
            Objects.requireNonNull(message, "message");
        }
    }

    private final long ringBytes;
    private final int bucketSizeBytes;

    /** A scanner for a ring of {@code ringBytes} made of buckets of {@code bucketSizeBytes}. */
    public JournalScanner(long ringBytes, int bucketSizeBytes) {
        Checks.require(ByteLayout.isPowerOfTwo(bucketSizeBytes) && bucketSizeBytes >= ByteLayout.BLOCK_BYTES,
                "bucketSizeBytes must be a power of two >= 4096, got %d", bucketSizeBytes);
        Checks.require(ringBytes > 0 && ringBytes % bucketSizeBytes == 0,
                "ringBytes must be a positive multiple of bucketSizeBytes %d, got %d", bucketSizeBytes, ringBytes);
        this.ringBytes = ringBytes;
        this.bucketSizeBytes = bucketSizeBytes;
    }

    /**
     * Walks forward from the entry expected at {@code startOffsetBytes} with sequence {@code startSequence}
     * whose previousEntryCrc must be {@code startPreviousCrc}; at most one lap of the ring.
     */
    public Scan scan(RingReader reader, long startOffsetBytes, long startSequence, int startPreviousCrc) {
        Walk walk = walk(reader, startOffsetBytes, startSequence, startPreviousCrc);
        Scan scan = null;
        while (scan == null) {
            scan = walk.step(Integer.MAX_VALUE);
        }
        return scan;
    }

    /** The same walk as {@link #scan}, taken a few entries at a time ({@link Walk#step}). */
    public Walk walk(RingReader reader, long startOffsetBytes, long startSequence, int startPreviousCrc) {
        Checks.require(startOffsetBytes >= 0 && startOffsetBytes < ringBytes
                && startOffsetBytes % ByteLayout.BLOCK_BYTES == 0,
                "startOffsetBytes must be 4 KiB aligned inside the ring, got %d", startOffsetBytes);
        return new Walk(reader, startOffsetBytes, startSequence, startPreviousCrc);
    }

    /**
     * A walk in progress: recovery takes it in steps so that a long journal tail does not hold the loop
     * (docs/ARCHITECTURE.md §4.6). Taken to its end, it is exactly {@link #scan}.
     */
    public final class Walk {
        private final RingReader reader;
        private final List<ScannedEntry> entries = new ArrayList<>();
        private long offset;
        private long sequence;
        private int previousCrc;
        private long walkedBytes;

        private Walk(RingReader reader, long offset, long sequence, int previousCrc) {
            this.reader = reader;
            this.offset = offset;
            this.sequence = sequence;
            this.previousCrc = previousCrc;
        }

        /** Accepts at most {@code entriesMax} more entries; returns the scan once the walk ended, else null. */
        public Scan step(int entriesMax) {
            for (int taken = 0; taken < entriesMax; taken++) {
                if (walkedBytes >= ringBytes) {
                    return new Scan(entries, StopReason.RING_WRAPPED, offset, sequence, previousCrc, null,
                            "walked the whole ring of " + ringBytes + " bytes; next sequence " + sequence);
                }
                Attempt here = attempt(reader, offset, sequence, previousCrc);
                if (!here.valid() && offset % bucketSizeBytes != 0) {
                    long skip = bucketSizeBytes - offset % bucketSizeBytes;
                    Attempt next = attempt(reader, (offset + skip) % ringBytes, sequence, previousCrc);
                    if (next.valid()) {
                        walkedBytes += skip;
                        offset = (offset + skip) % ringBytes;
                        here = next;
                    }
                }
                if (!here.valid()) {
                    return stop(reader, entries, here, offset, sequence, previousCrc);
                }
                entries.add(new ScannedEntry(offset, here.entry()));
                previousCrc = here.entry().entryCrc();
                sequence++;
                walkedBytes += here.entry().entryBytes();
                offset = (offset + here.entry().entryBytes()) % ringBytes;
            }
            return null;
        }
    }

    /** One try at decoding the expected entry at one offset: the entry, or why not. */
    private record Attempt(JournalEntry entry, StopReason reason, DecodeError error, String message) {
        boolean valid() {
            return entry != null && reason == null;
        }
    }

    private Attempt attempt(RingReader reader, long offset, long sequence, int previousCrc) {
        int roomBytes = (int) (bucketSizeBytes - offset % bucketSizeBytes);
        byte[] head = reader.read(offset, ByteLayout.BLOCK_BYTES);
        DecodeResult<Integer> length = JournalEntry.peekEntryBytes(head, 0, roomBytes);
        if (!length.isOk()) {
            DecodeError error = length.error().shifted(offset);
            StopReason reason = error.kind() == DecodeError.Kind.BAD_MAGIC ? StopReason.END_NO_ENTRY
                    : StopReason.TORN_ENTRY;
            return new Attempt(null, reason, error, error.message());
        }
        byte[] bytes = length.value() == head.length ? head : reader.read(offset, length.value());
        DecodeResult<JournalEntry> decoded = JournalEntry.decode(bytes, 0, roomBytes);
        if (!decoded.isOk()) {
            DecodeError error = decoded.error().shifted(offset);
            StopReason reason = error.kind() == DecodeError.Kind.BAD_CRC ? StopReason.TORN_ENTRY
                    : StopReason.BAD_RECORD;
            return new Attempt(null, reason, error, error.message());
        }
        JournalEntry entry = decoded.value();
        if (entry.sequence() < sequence) {
            return new Attempt(entry, StopReason.STALE_SEQUENCE, null, "found older sequence " + entry.sequence());
        }
        if (entry.sequence() > sequence) {
            return new Attempt(entry, StopReason.SEQUENCE_GAP, null, "found newer sequence " + entry.sequence()
                    + ": sequences " + sequence + ".." + (entry.sequence() - 1) + " are missing");
        }
        if (entry.previousEntryCrc() != previousCrc) {
            return new Attempt(entry, StopReason.CHAIN_MISMATCH, null, "previousEntryCrc "
                    + Crc.hex(entry.previousEntryCrc()) + " does not match the previous entry's CRC "
                    + Crc.hex(previousCrc));
        }
        return new Attempt(entry, null, null, "");
    }

    private Scan stop(RingReader reader, List<ScannedEntry> entries, Attempt failed, long offset, long sequence,
            int previousCrc) {
        StopReason reason = failed.reason();
        String where = "sequence " + sequence + " at ring byte " + offset + ": ";
        if (reason == StopReason.TORN_ENTRY) {
            long successor = findSuccessor(reader, offset, sequence + 1);
            if (successor >= 0) {
                return new Scan(entries, StopReason.CORRUPT_ENTRY, offset, sequence, previousCrc, failed.error(),
                        "corrupt journal entry " + where + failed.message() + "; its successor (sequence "
                                + (sequence + 1) + ") is valid at ring byte " + successor);
            }
        }
        // A normal end is said in plain words ('check' prints it for every healthy cache); the decoder's own text
        // ("expected magic ..., found ...") is kept for the stops that mean damage.
        boolean decoderText = reason == StopReason.END_NO_ENTRY || reason == StopReason.TORN_ENTRY;
        String message = !reason.normalEnd() ? "journal ends (" + reason + ") expecting " + where + failed.message()
                : "journal ends normally before " + where + reason.plainWords()
                        + (decoderText ? "" : " (" + failed.message() + ")");
        return new Scan(entries, reason, offset, sequence, previousCrc, failed.error(), message);
    }

    /**
     * Looks for a valid entry with {@code sequence} where the successor of a damaged entry at {@code offset}
     * could lie: any 4 KiB block after it in the same bucket, or the next bucket's start. Bounded by one
     * bucket of 4 KiB reads. Returns its ring offset, or -1.
     */
    private long findSuccessor(RingReader reader, long offset, long sequence) {
        long bucketEnd = offset - offset % bucketSizeBytes + bucketSizeBytes;
        for (long candidate = offset + ByteLayout.BLOCK_BYTES; candidate <= bucketEnd;
                candidate += ByteLayout.BLOCK_BYTES) {
            long ringOffset = candidate % ringBytes;
            if (ringOffset == offset % ringBytes) {
                break;
            }
            Attempt attempt = attempt(reader, ringOffset, sequence, 0);
            if (attempt.entry() != null && attempt.entry().sequence() == sequence) {
                return ringOffset;
            }
        }
        return -1;
    }
}
