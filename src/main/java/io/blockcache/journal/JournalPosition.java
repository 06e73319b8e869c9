package io.blockcache.journal;

/**
 * Where the journal continues: the ring offset of the next entry, its sequence, the CRC it must chain to,
 * and the start sequence of the newest durable checkpoint.
 *
 * @param ringOffsetBytes 4 KiB-aligned offset in the ring of the next entry
 * @param nextSequence the next entry's sequence (1 for a fresh journal)
 * @param previousEntryCrc the CRC of the entry before it (0 for a fresh journal)
 * @param checkpointSequence start sequence of the newest durable checkpoint (0 = none)
 */
public record JournalPosition(long ringOffsetBytes, long nextSequence, int previousEntryCrc,
                              long checkpointSequence) {
    /** The position of a freshly formatted journal. */
    public static JournalPosition fresh() {
        return new JournalPosition(0, 1, 0, 0);
    }
}
