package io.blockcache.volume;

/** Why a request goes around the cache (or a read is not filled into it), if it does. */
enum BypassReason {
    /** Cached as usual. */
    NONE,
    /** Part of a sequential stream past the cutoff (bcache: sequential_cutoff). */
    SEQUENTIAL,
    /** The cache device is congested (bcache: congested_read/write_threshold_us). */
    CONGESTED,
    /** The cache is too full of dirty data for this write (bcache: CUTOFF_WRITEBACK, CUTOFF_WRITEBACK_SYNC). */
    OCCUPANCY
}
