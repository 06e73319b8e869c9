package io.blockcache.writeback;

import io.blockcache.device.BlockDevice;
import io.blockcache.loop.Checks;
import io.blockcache.volume.VolumeIndex;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Marks written-back keys clean, safely (docs/ARCHITECTURE.md §5 item 4): keys whose backing write completed wait in a
 * batch; the batch is closed by one FLUSH of the backing device, and only after the flush succeeded is each key's clean
 * marking journaled and applied — conditionally, so a key a newer write replaced meanwhile stays dirty. A failed
 * flush leaves the whole batch dirty (written again later).
 *
 * <p>Only the failed batch is left dirty; keys whose backing write completed while that flush ran are in the next
 * batch, and a Linux device may have dropped them with its cache and then report the loss to no later flush
 * (fsync error reporting: LWN "PostgreSQL's fsync() surprise", 2018). That is safe only because every backing
 * device reaches the engine behind {@code device.StickyFlushDevice} ({@code engine.CacheSetBuilder}): after one
 * failed flush every later flush fails too, so no later batch can be marked clean over lost writes. Dropping that
 * wrapper would need this class to re-write every key written since the first failure.
 *
 * <p>When a batch is flushed: when no writeback read or write is in flight (the natural end of a burst), when it
 * reaches {@link #BATCH_KEYS_MAX}, or when its oldest key has waited {@link #BATCH_WAIT_MAX_NS}.
 *
 * <p>Thread rule: the loop thread.
 */
final class CleanMarker {
    /** One flush per this many keys at most: flushes are expensive on a disk with a write cache. */
    static final int BATCH_KEYS_MAX = 256;
    /** A key waits at most this long for its flush even while writes keep streaming. */
    static final long BATCH_WAIT_MAX_NS = 1_000_000_000L;

    /** Told when a batch is settled. */
    interface Listener {
        /** The batch's keys are no longer in flight; {@code failure} null if the flush succeeded, else why not. */
        void settled(List<DirtyKey> keys, String failure);
    }

    private final BlockDevice backing;
    private final VolumeIndex index;
    private final WritebackCounters counters;
    private final Listener listener;
    private List<DirtyKey> pending = new ArrayList<>();
    private long pendingSectors;
    private long oldestPendingNs;
    private boolean flushing;
    /** A journaled group is being placed ({@link JournaledGroups}): keys wait for the group's end, however many. */
    private boolean deferred;

    CleanMarker(BlockDevice backing, VolumeIndex index, WritebackCounters counters, Listener listener) {
        this.backing = backing;
        this.index = index;
        this.counters = counters;
        this.listener = listener;
    }

    /** Keys whose backing write completed. */
    void written(List<DirtyKey> keys, long nowNs) {
        if (pending.isEmpty()) {
            oldestPendingNs = nowNs;
        }
        pending.addAll(keys);
        for (DirtyKey key : keys) {
            pendingSectors += key.lengthSectors();
        }
    }

    /** Starts a flush if the batch is due; {@code ioInFlight} says whether writeback reads/writes are running. */
    void maybeFlush(boolean ioInFlight, long nowNs) {
        if (flushing || pending.isEmpty() || deferred) {
            return;
        }
        if (ioInFlight && pending.size() < BATCH_KEYS_MAX && nowNs - oldestPendingNs < BATCH_WAIT_MAX_NS) {
            return;
        }
        List<DirtyKey> batch = takeBatch();
        backing.flush(result -> {
            flushing = false;
            if (result.ok()) {
                markClean(batch);
            } else {
                counters.flushErrors.incrementAndGet();
            }
            listener.settled(batch, result.ok() ? null : "backing flush failed: " + result.message());
        });
    }

    /**
     * While {@code on}, batches wait for {@link #closeGroup} instead of flushing on their own (journaled write-back:
     * nothing of a group may be marked clean before its log is retired, docs/FORMAT.md §4.4).
     */
    void defer(boolean on) {
        deferred = on;
    }

    /**
     * Ends a journaled group: one flush of the backing device, then {@code beforeMarking} (the log's retire), and only
     * if both succeeded every pending key is marked clean; the listener hears of the batch either way. Stops
     * deferring.
     */
    void closeGroup(Consumer<Consumer<String>> beforeMarking) {
        Checks.check(!flushing, "a group closed while a clean batch is flushing");
        deferred = false;
        List<DirtyKey> batch = takeBatch();
        backing.flush(result -> {
            if (!result.ok()) {
                flushing = false;
                counters.flushErrors.incrementAndGet();
                listener.settled(batch, "backing flush failed: " + result.message());
                return;
            }
            beforeMarking.accept(failure -> {
                flushing = false;
                if (failure == null) {
                    markClean(batch);
                }
                listener.settled(batch, failure);
            });
        });
    }

    /** Sectors of the pending keys (written, not yet in a flush's batch). */
    long pendingSectors() {
        return pendingSectors;
    }

    /** Keys waiting before no new pass starts: none while deferring, since a group's keys all wait for its end. */
    int pendingKeysBlocking() {
        return deferred ? 0 : pending.size();
    }

    /** Takes the pending keys away unmarked (an abandoned group: they stay dirty). */
    List<DirtyKey> dropPending() {
        List<DirtyKey> dropped = pending;
        pending = new ArrayList<>();
        pendingSectors = 0;
        return dropped;
    }

    private List<DirtyKey> takeBatch() {
        List<DirtyKey> batch = pending;
        pending = new ArrayList<>();
        pendingSectors = 0;
        flushing = true;
        counters.flushes.incrementAndGet();
        return batch;
    }

    private void markClean(List<DirtyKey> batch) {
        for (DirtyKey key : batch) {
            long cleaned = index.markClean(key.startSector(), key.lengthSectors(), key.bucket(),
                    key.offsetInBucketSectors(), key.generation());
            counters.keysCleaned.incrementAndGet();
            counters.sectorsCleaned.addAndGet(cleaned);
            counters.sectorsOverwrittenMeanwhile.addAndGet(key.lengthSectors() - cleaned);
        }
    }

    /** Keys written and waiting for (or in) a flush. */
    int pendingKeys() {
        return pending.size();
    }

    boolean flushing() {
        return flushing;
    }
}
