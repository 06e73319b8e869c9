package io.blockcache.gc;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.cache.BucketAllocator;
import io.blockcache.cache.BucketState;
import io.blockcache.cache.BucketTable;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.loop.SimLoop;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class GcUnitTest {
    /** A checkpoint port whose checkpoints the test completes by hand. */
    private static final class ManualCheckpoints implements CheckpointPort {
        long written;
        boolean running;

        @Override
        public long checkpointsWritten() {
            return written;
        }

        @Override
        public boolean running() {
            return running;
        }

        @Override
        public void start(IoCallback done) {
            written++;
            done.complete(IoResult.OK);
        }
    }

    @Test
    void sliceSizeHasAFloorOfTenAndRescalesSoAGcFitsInHalfItsInterval() {
        // Proves the pacing of bcache's GC-latency patch (linux-bcache, 2025): >= 10 nodes, and nodes / ((interval / 2)
        // / sleep) once the interval is known.
        long sleep = 10_000_000L;
        assertThat(GcPacing.nodesPerSlice(100_000, 0, sleep, 10)).isEqualTo(10);
        assertThat(GcPacing.nodesPerSlice(50, 2_000_000_000L, sleep, 10)).isEqualTo(10);
        // 2 s interval: 1 s budget = 100 sleeps; 100000 nodes need 1000 per slice.
        assertThat(GcPacing.nodesPerSlice(100_000, 2_000_000_000L, sleep, 10)).isEqualTo(1000);
        assertThat(GcPacing.nodesPerSlice(100_001, 2_000_000_000L, sleep, 10)).isEqualTo(1001);
        // Interval shorter than two sleeps: the whole index in one slice.
        assertThat(GcPacing.nodesPerSlice(5000, 15_000_000L, sleep, 10)).isEqualTo(5000);
    }

    @Test
    void generationGuardBlocksAtOpenUntilACheckpointThenBoundsTheDistanceUntilAMarkIsDurable() {
        // Proves the wrap guard: no bump at open until a checkpoint; then at most distanceMax - 1 bumps ahead
        // of the floor; a completed mark raises the floor only after a later checkpoint is durable.
        BucketTable table = new BucketTable(2, 8);
        table.setGeneration(1, 65530); // near the wrap: distances are modular
        ManualCheckpoints checkpoints = new ManualCheckpoints();
        GenerationGuard guard = new GenerationGuard(table, checkpoints, 4);
        assertThat(guard.mayBump(0)).isFalse();
        assertThat(guard.mayBump(1)).isFalse();
        checkpoints.written++;
        for (int b = 0; b < 2; b++) {
            for (int i = 0; i < 3; i++) {
                assertThat(guard.mayBump(b)).as("bump %s of bucket %s", i, b).isTrue();
                table.bumpGeneration(b);
            }
            assertThat(guard.mayBump(b)).as("bucket %s at floor + 3", b).isFalse();
        }
        assertThat(table.generation(1)).isEqualTo(65533);
        char[] snapshot = {(char) table.generation(0), (char) table.generation(1)};
        checkpoints.running = true; // a checkpoint that started before the mark ended does not count
        guard.markCompleted(snapshot);
        checkpoints.written++;
        checkpoints.running = false;
        assertThat(guard.mayBump(1)).isFalse();
        checkpoints.written++;
        assertThat(guard.mayBump(1)).isTrue();
        for (int i = 0; i < 3; i++) {
            table.bumpGeneration(1);
        }
        assertThat(table.generation(1)).isEqualTo(0); // wrapped, still bounded
        assertThat(guard.mayBump(1)).isFalse();
        assertThat(guard.refusals()).isEqualTo(6);
    }

    @Test
    void evictionPrefersColdSparseBucketsAndNeverPicksDirtyPinnedOpenOrMetadata() {
        // Proves the eviction order and exclusions: key = (warmth + 1) x live, dirty/pinned/non-sealed never.
        SimLoop loop = new SimLoop();
        BucketTable table = new BucketTable(10, 100);
        long[] sequence = {1};
        BucketAllocator allocator = new BucketAllocator(table, (bucket, generation) -> sequence[0]);
        BucketRecency recency = new BucketRecency(loop, 1_000_000L, 10);
        Evictor evictor = new Evictor(table, allocator, recency, 10);
        int[] live = {50, 10, 90, 20, 30, 40, 60, 70, 80, 5};
        for (int b = 0; b < 10; b++) {
            table.setState(b, BucketState.SEALED);
            table.addLive(b, live[b], false);
        }
        table.addDirty(3, 1);            // dirty: never
        table.pin(4);                    // pinned: never
        table.setState(5, BucketState.OPEN);
        table.setState(6, BucketState.METADATA);
        table.setState(7, BucketState.JOURNAL);
        allocator.rebuildFreeSet();
        loop.runFor(700_000_000L);       // tick 701
        recency.touch(1);                // warm: hit just now
        loop.runFor(1_000_000L);
        GcConfig config = GcConfig.defaults();
        long[] order = evictor.candidates(config);
        // cold: 9 (5 live), 0 (50), 8 (80), 2 (90); warm bucket 1: (600 - 1 + 1) x 10 = 6000, last.
        assertThat(Arrays.stream(order).toArray()).containsExactly(9, 0, 8, 2, 1);

        assertThat(evictor.evictIfLow(config.withFreePercents(50, 50))).isEqualTo(5);
        for (int b : new int[] {3, 4, 5, 6, 7}) {
            assertThat(table.state(b)).as("bucket %s untouched", b).isNotEqualTo(BucketState.REUSE_PENDING);
        }
        assertThat(table.liveSectors(0)).isZero();
        assertThat(table.generation(0)).isEqualTo(1);
        assertThat(allocator.evict(3)).isFalse();
        assertThat(allocator.evict(4)).isFalse();
        assertThat(allocator.evict(5)).isFalse();
    }

    @Test
    void theFreeMarginShrinksToTwoBucketsWithoutDirtyWritesAndIsWholeUnderThem() {
        // Proves the margin sized by dirty writes: 100 sealed clean buckets, none free, low 10 % / target 15 %.
        // With dirty writes taking every allocation (share 1) eviction frees 15 (the fixed marks of before); with
        // none (share 0) it keeps 2 + the 5-point batch = 7; with half, 5 + 5 = 10.
        for (double[] c : new double[][] {{1, 15}, {0, 7}, {0.5, 10}}) {
            SimLoop loop = new SimLoop();
            BucketTable table = new BucketTable(100, 100);
            BucketAllocator allocator = new BucketAllocator(table, (bucket, generation) -> 1);
            Evictor evictor = new Evictor(table, allocator, new BucketRecency(loop, 1_000_000L, 100), 100);
            for (int b = 0; b < 100; b++) {
                table.setState(b, BucketState.SEALED);
                table.addLive(b, 10, false);
            }
            allocator.rebuildFreeSet();
            GcConfig config = GcConfig.defaults();
            assertThat(evictor.lowMarkBuckets(config, c[0])).isEqualTo((int) c[1] - 5);
            assertThat(evictor.evictIfLow(config, c[0])).as("share %s", c[0]).isEqualTo((int) c[1]);
            assertThat(evictor.evictIfLow(config, c[0])).as("nothing more once at the target").isZero();
        }
    }
}
