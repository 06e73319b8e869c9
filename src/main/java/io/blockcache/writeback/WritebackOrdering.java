package io.blockcache.writeback;

/**
 * Whether writeback keeps the order of the client's FLUSHes (knob {@code writeback.<volume>.ordering};
 * docs/WRITEBACK.md, "Epoch ordering").
 */
public enum WritebackOrdering {
    /** Dirty data is written back in whatever order is fastest (LBA passes, expired keys first). */
    NONE,
    /**
     * Every FLUSH and FUA write closes an epoch; epoch n is written back and the backing device flushed before any
     * data of epoch n+1 is written, and the front end holds what would break that order. The backing device alone
     * then always holds what the volume held at some FLUSH plus part of the next epoch: a crash-consistent image.
     */
    EPOCHS,
    /**
     * The promise of {@link #EPOCHS} at the speed of unordered writeback (docs/WRITEBACK.md, "Journaled
     * write-back"): several closed epochs at once go sequentially into the backing device's log, are committed, and
     * then go in place in one sorted sweep; the log is retired only after. Needs a backing device formatted with a
     * log (docs/FORMAT.md §4.4); a lone epoch is written as {@link #EPOCHS} writes it.
     */
    JOURNALED
}
