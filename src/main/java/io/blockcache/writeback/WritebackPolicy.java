package io.blockcache.writeback;

/** Which writeback algorithm runs (docs/WRITEBACK.md, knob {@code writeback.<volume>.policy}). */
public enum WritebackPolicy {
    /**
     * The 2025 bcache patch and more: passes ordered at read submission, no sequence wait, idle-size passes
     * within ~200 ms of front-end idleness, merged backing writes, a queue kept between measured goals.
     */
    MODERN,
    /**
     * bcache before the 2025 patch, kept as the baseline of every comparison: at most 5 LBA-contiguous keys
     * (5000 sectors) per pass, at most 64 keys in flight, backing writes issued in sequence order, each as soon as
     * the previous one was issued (not completed: bcache's write_dirty() advances writeback_sequence_next right
     * after submitting), and full speed only after ~30 s without front-end I/O.
     */
    CLASSIC
}
