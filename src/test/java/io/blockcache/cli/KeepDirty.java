package io.blockcache.cli;

import io.blockcache.engine.CacheSet;

/**
 * Test knobs that keep a volume's writes dirty in the cache until the test says otherwise: writeback paused, and
 * the congestion bypass off. Why the bypass: on a loaded 2-core machine a file device's latency alone passes
 * bcache's thresholds (2 ms read, 20 ms write) and the volume starts sending writes around the cache, so a test
 * expecting dirty data finds some of it on the backing file (CheckDamageCommandTest failed so, at load 15).
 * Thread rule: the set's loop thread.
 */
final class KeepDirty {
    private KeepDirty() {
    }

    static void on(CacheSet set, String volume) {
        set.knobs().find("writeback." + volume + ".running").set("false");
        set.knobs().find("volume." + volume + ".congested_read_threshold_us").set("0");
        set.knobs().find("volume." + volume + ".congested_write_threshold_us").set("0");
    }
}
