package io.blockcache.volume;

import io.blockcache.cache.CacheLayout;
import io.blockcache.cache.CacheSpace;
import io.blockcache.device.BlockDevice;
import io.blockcache.device.DirectBufferPool;
import io.blockcache.journal.MetadataJournal;
import io.blockcache.loop.EventLoop;
import java.util.ArrayDeque;

/**
 * Everything one volume's request classes share. Package-private plumbing so that each request class
 * stays small; the fields are the volume's collaborators, not state of their own.
 */
final class VolumeContext {
    final EventLoop loop;
    /** Replaced only by {@link Volume#grow} (loop thread); volatile for the NBD threads' size reads. */
    volatile VolumeConfig config;
    final BlockDevice cacheDevice;
    final BlockDevice backingDevice;
    final CacheLayout layout;
    final CacheSpace space;
    final VolumeIndex index;
    final MetadataJournal journal;
    final InFlightWrites inFlight = new InFlightWrites();
    /** Cached writes kept for reuse ({@link CachedWrite#take}). */
    final ArrayDeque<CachedWrite> cachedWrites = new ArrayDeque<>();
    /** Read-miss fills kept for reuse ({@link ReadFill}), and the direct buffers their copies live in. */
    final ArrayDeque<ReadFill> fills = new ArrayDeque<>();
    final DirectBufferPool fillBuffers = ReadFill.newBufferPool();
    final BackingWriteGate backingGate = new BackingWriteGate();
    final VolumeStats stats = new VolumeStats();
    final CacheExtentReader extentReader;
    final BypassPolicy bypass;
    final ReadAdmission admission;
    final WriteThrottle throttle;
    /** The damage map on the backing device, or null (a volume built without one, as in unit tests). */
    final DamageMap damage;
    volatile CacheMode mode;
    WritebackHooks hooks = WritebackHooks.NONE;
    /** Writeback keeps FLUSH order (knob {@code writeback.<volume>.ordering=epochs}): the front end must too. */
    boolean epochOrdering;
    final EpochGate epochGate = new EpochGate(this);

    VolumeContext(EventLoop loop, VolumeConfig config, BlockDevice cacheDevice, BlockDevice backingDevice,
                  CacheLayout layout, CacheSpace space, VolumeIndex index, MetadataJournal journal,
                  DamageMap damage) {
        this.loop = loop;
        this.config = config;
        this.bypass = new BypassPolicy(loop, new OccupancyGauge(space.table(), space.allocator()),
                new BackingRateMeter(backingDevice.counters()));
        this.throttle = new WriteThrottle(loop);
        this.admission = new ReadAdmission(space, stats);
        // The front end's cache reads and writes feed the congestion monitor (bcache: bch_bbio_count_io_errors).
        this.cacheDevice = new LatencyProbe(cacheDevice, loop, bypass.congestion());
        this.backingDevice = backingDevice;
        this.layout = layout;
        this.space = space;
        this.index = index;
        this.journal = journal;
        this.mode = config.mode();
        // Writeback's reads go to the device itself (the constructor's cacheDevice, not the probe) and do not feed
        // it: large, queued deep by writeback itself, their latency measures writeback's own queue, not the device a
        // front-end request meets. Counted (as bcache counts them), a busy writeback pushed the read average past the
        // 2 ms threshold and sent the front end's new writes around the cache: measured, 230 MiB of 4 KiB random
        // writes went to the backing device in 2 s, front-end cache writes averaging 1.3 ms.
        this.extentReader = new CacheExtentReader(this.cacheDevice, cacheDevice, layout, space.allocator());
        this.damage = damage;
        if (damage != null) {
            damage.attach(index, inFlight, this::backingConsistentAsOfEpoch);
        }
    }

    /**
     * With epoch ordering: false while dirty data of an older epoch overlaps the range (replacing it would lose a
     * FLUSH boundary on the backing device, docs/WRITEBACK.md).
     */
    boolean mayReplaceDirty(long startSector, long lengthSectors) {
        DirtyEpochs epochs = index.epochs();
        return !epochOrdering || !epochs.anyOlderThan(startSector, lengthSectors, epochs.current());
    }

    /**
     * With epoch ordering: false while any older epoch is still dirty, since data going straight to the backing
     * device now would land before it; and, ordering or not, while the record voiding the volume's recorded epochs is
     * not durable, or the damage map still says the order holds ({@link #orderHeld}).
     */
    boolean mayGoAround() {
        if (orderHeld()) {
            return false; // the recorded epochs are not durably void yet, or the map still vouches for their order
        }
        DirtyEpochs epochs = index.epochs();
        return !epochOrdering || epochs.oldest() >= epochs.current();
    }

    /**
     * True while the volume holds whatever could make its backing device leave the recorded epoch order (writeback
     * passes, writes around the cache): the journal record voiding its recorded epochs, or the damage map's clear of
     * its consistency flag, is not durable yet (docs/FORMAT.md §7 rule 15, docs/WRITEBACK.md "When a device fails").
     */
    boolean orderHeld() {
        return index.epochVoidPending() || (damage != null && damage.clearingConsistent());
    }

    /**
     * The flush epoch the backing device alone is consistent as of, for the damage map's flag, or -1 if it is not
     * known to be: ordering in force and nothing held, no dirty data of unknown order, and none recovered from before
     * the restart (its order is on record, but the flag waits until it is written back: one history to vouch for).
     * E is the newest epoch written back and flushed (every epoch older than the oldest dirty one), a lower bound.
     */
    long backingConsistentAsOfEpoch() {
        if (!epochOrdering || orderHeld()) {
            return -1;
        }
        DirtyEpochs epochs = index.epochs();
        long oldest = epochs.oldest();
        if (oldest == DirtyEpochs.NONE) {
            return epochs.current() - 1;
        }
        return oldest < epochs.firstEpoch() ? -1 : oldest - 1; // ORDER_UNKNOWN (0) is below every first epoch
    }

    /** Byte offset on the backing device of volume sector {@code sector}. */
    long backingOffset(long sector) {
        return config.backingDataOffsetBytes() + sector * BlockDevice.SECTOR_BYTES;
    }

    /** Byte offset on the cache device of {@code offsetSectors} into {@code bucket}. */
    long cacheOffset(int bucket, int offsetSectors) {
        return layout.byteOffset(bucket, offsetSectors);
    }

    /** Removes every cached extent in a range of any length, in index-sized chunks. */
    /**
     * Drops (journaled) every clean piece cached in the range, keeping the dirty ones: before a backing write that
     * must leave the dirty copies in place until it is durable ({@link OrderedAroundWrite}). A covered clean copy
     * must leave the journal before the backing data under it changes (docs/FORMAT.md §7 rule 10); a read that misses
     * meanwhile reads the backing device, and a fill of it is raced by the write in flight. Found by the fuzz (seed
     * 3 of 2026-12-07: a write-zeroes over dirty data zeroed the backing device under a covered clean copy that the
     * ordered path dropped only after the backing flush, and a power cut came in between).
     */
    void dropClean(long startSector, long lengthSectors) {
        java.util.List<long[]> clean = new java.util.ArrayList<>();
        long position = startSector;
        long end = startSector + lengthSectors;
        while (position < end) {
            int chunk = (int) Math.min(end - position, 1 << 30);
            index.extents().lookup(position, chunk, space, new io.blockcache.index.LookupVisitor() {
                @Override
                public void hole(long start, int length) {
                }

                @Override
                public void extent(long start, int length, long location, int crc32c, int crcOffsetInBucketSectors,
                                   int crcLengthSectors) {
                    if (!io.blockcache.index.ExtentLocation.dirty(location)) {
                        clean.add(new long[] {start, length});
                    }
                }
            });
            position += chunk;
        }
        for (long[] piece : clean) {
            index.remove(piece[0], (int) piece[1]);
        }
    }

    void invalidate(long startSector, long lengthSectors) {
        long position = startSector;
        long end = startSector + lengthSectors;
        while (position < end) {
            int chunk = (int) Math.min(end - position, 1 << 30);
            index.remove(position, chunk);
            position += chunk;
        }
    }
}
