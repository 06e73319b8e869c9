package io.blockcache.engine;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.IoCallback;
import io.blockcache.loop.EventLoop;
import io.blockcache.loop.Prng;
import io.blockcache.volume.Volume;
import java.util.List;
import java.util.function.Consumer;

/**
 * One cache device and the backing devices attached to it, each served as a {@link Volume}: the library
 * API of blockcache.
 *
 * <p>Life cycle: {@link #format} once; {@link #open} at every start (this is recovery: newest valid
 * superblock, newest checkpoint, journal replay — and after a crash, just the same); {@link #shutdown} to
 * stop cleanly. A crash at any moment, recovery included, is just another crash.
 *
 * <p>Thread rule: every method on {@code loop}'s thread; callbacks run there.
 */
public final class CacheSet {
    private CacheSet() {
    }

    /**
     * Formats {@code cacheDevice} and writes a header to each backing device, attaching them to a new cache
     * set. Existing contents of the cache device are lost; backing data is untouched except the first 1 MiB.
     *
     * @param ids source of the new cache set's and backing devices' UUIDs
     * @param progress told the fraction done in [0, 1] as the journal ring is cleared (may be called often)
     */
    public static void format(EventLoop loop, BlockDevice cacheDevice, List<BackingSpec> backings,
                              CacheSetOptions options, Prng ids, java.util.function.DoubleConsumer progress,
                              Consumer<Outcome<Void>> done) {
        throw new UnsupportedOperationException("not yet");
    }

    /**
     * Opens a formatted cache set: checks the superblocks and every backing device's identity and size,
     * loads the newest checkpoint and replays the journal. Refuses, with a message saying what was found and
     * what was expected, a wrong, resized or foreign backing device, or a corrupt journal.
     */
    public static void open(EventLoop loop, BlockDevice cacheDevice, List<BackingSpec> backings,
                            CacheSetOptions options, Consumer<Outcome<CacheSet>> done) {
        throw new UnsupportedOperationException("not yet");
    }

    /** The volumes, in the order of the backing devices. */
    public List<Volume> volumes() {
        throw new UnsupportedOperationException("not yet");
    }

    /**
     * Stops cleanly: commits the journal, writes a checkpoint, and marks the superblock clean. Requests
     * must not be submitted after this call.
     */
    public void shutdown(IoCallback done) {
        throw new UnsupportedOperationException("not yet");
    }
}
