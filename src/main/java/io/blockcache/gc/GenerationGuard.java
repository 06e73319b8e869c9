package io.blockcache.gc;

import io.blockcache.cache.BucketTable;
import io.blockcache.cache.BumpGuard;
import io.blockcache.loop.Checks;

/**
 * Keeps 16-bit bucket generations from lapping a key that is still stored.
 *
 * <p><b>Rule.</b> For every bucket we keep a floor: no stored key of the bucket — in memory, in the newest
 * durable checkpoint, or in the journal after it — carries a generation older than the floor. A bump is
 * allowed only while the new generation stays less than {@code generationDistanceMax} ahead of the floor
 * (distance modulo 2^16). Since that bound is below 2^15, a stale key's generation never equals the bucket's
 * again, so equality stays a safe staleness test.
 *
 * <p><b>Raising the floor.</b> A complete mark drops every stale key in memory, so afterwards every stored
 * key of bucket b carries at least the generation b had when the mark started. Durable metadata may still
 * hold the dropped keys until a checkpoint written after the mark is durable; only then does the floor move
 * up to the mark's snapshot. At open the floor is unknown: we assume the worst (the bucket is already at the
 * bound) and take the generations at open as the pending floor, so the first checkpoint after open frees
 * them (recovery's sweep dropped every stale key in memory).
 *
 * <p>Thread rule: the cache's loop thread.
 */
public final class GenerationGuard implements BumpGuard {
    private static final int MASK = BucketTable.GENERATION_MODULUS - 1;

    private final BucketTable table;
    private final CheckpointPort checkpoints;
    private int distanceMax;
    private final char[] floor;
    private char[] pendingFloor;
    private long pendingNeedsCheckpoints;
    private long refusals;

    /** Starts as at open: every floor at the bound, the current generations pending the next checkpoint. */
    public GenerationGuard(BucketTable table, CheckpointPort checkpoints, int distanceMax) {
        this.table = table;
        this.checkpoints = checkpoints;
        this.distanceMax = distanceMax;
        this.floor = new char[table.bucketCount()];
        char[] atOpen = new char[table.bucketCount()];
        for (int b = 0; b < floor.length; b++) {
            atOpen[b] = (char) table.generation(b);
            floor[b] = (char) ((table.generation(b) - (distanceMax - 1)) & MASK);
        }
        setPending(atOpen);
    }

    @Override
    public boolean mayBump(int bucket) {
        applyPendingIfDurable();
        boolean allowed = distance(table.generation(bucket) + 1, floor[bucket]) < distanceMax;
        if (!allowed) {
            refusals++;
        }
        return allowed;
    }

    /**
     * Records a complete mark that started when the generations were {@code markStartGenerations}: it becomes
     * every bucket's floor once a checkpoint that starts after now is durable. A floor already pending is
     * kept (it is older and will be durable sooner); the next mark offers its own again.
     */
    public void markCompleted(char[] markStartGenerations) {
        if (pendingFloor == null) {
            setPending(markStartGenerations.clone());
        }
    }

    private void setPending(char[] generations) {
        pendingFloor = generations;
        // A checkpoint running now started before this point and may hold older keys: wait for the one after.
        pendingNeedsCheckpoints = checkpoints.checkpointsWritten() + (checkpoints.running() ? 2 : 1);
    }

    /** Moves the floors up if the checkpoint the pending floor waits for is durable; true if it did. */
    public boolean applyPendingIfDurable() {
        if (pendingFloor == null || checkpoints.checkpointsWritten() < pendingNeedsCheckpoints) {
            return false;
        }
        for (int b = 0; b < floor.length; b++) {
            // Never lower a floor: a bucket bumped since the snapshot keeps the higher of the two bounds.
            if (distance(pendingFloor[b], floor[b]) < BucketTable.GENERATION_MODULUS / 2) {
                floor[b] = pendingFloor[b];
            }
        }
        pendingFloor = null;
        return true;
    }

    /** Changes the bound; safe both ways as long as it stays below 2^15 (floors never depend on it). */
    public void setDistanceMax(int newDistanceMax) {
        Checks.require(newDistanceMax >= 2 && newDistanceMax < (1 << 15), "distance %s", newDistanceMax);
        distanceMax = newDistanceMax;
    }

    /** True if a floor waits for a checkpoint. */
    public boolean hasPendingFloor() {
        return pendingFloor != null;
    }

    /** Generations {@code bucket} may still advance before its floor must move. */
    public int headroom(int bucket) {
        return distanceMax - 1 - distance(table.generation(bucket), floor[bucket]);
    }

    /** Bumps refused since start. */
    public long refusals() {
        return refusals;
    }

    private static int distance(int ahead, int behind) {
        return (ahead - behind) & MASK;
    }
}
