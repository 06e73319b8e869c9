package io.blockcache.writeback;

/**
 * In which order a modern pass issues its keys (knob {@code writeback.<volume>.order}; the bcache reorder debate,
 * linux-bcache 2017).
 */
public enum WritebackOrder {
    /** By backing LBA (a min-heap over the pass): seeks shrink, the disk can stream. */
    LBA,
    /** By age (the time the key's bucket was opened for dirty data, then its place in it): write order. */
    FIFO,
    /**
     * LBA for passes of small keys, FIFO once the buffered keys average at least
     * {@link WritebackSettings#autoLargeKeySectors()} (the 2017 bcache reorder debate saw reordering
     * lose for 512 KiB–1 MiB blocks).
     */
    AUTO
}
