package io.blockcache.gc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blockcache.cache.BucketState;
import io.blockcache.cache.BucketTable;
import io.blockcache.device.IoCallback;
import io.blockcache.index.ExtentIndex;
import io.blockcache.volume.CacheMode;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class MarkAndPacingTest {
    private final GcHarness h = new GcHarness();

    private int firstSealed(boolean clean) {
        BucketTable table = h.set.space().table();
        for (int b = 0; b < table.bucketCount(); b++) {
            if (table.state(b) == BucketState.SEALED && table.liveSectors(b) > 0
                    && (table.dirtySectors(b) == 0) == clean) {
                return b;
            }
        }
        throw new AssertionError("no sealed bucket");
    }

    @Test
    void markDropsTheStaleKeysOfAnEvictedBucketAndReadsStillReturnTheData() {
        // Proves mark: after an eviction the stale keys stay stored until a mark drops them; counts match.
        h.volume().setMode(CacheMode.WRITETHROUGH);
        for (int i = 0; i < 100; i++) {
            h.write(i, GcHarness.block(i, 1), false);
        }
        h.checkpoint(); // lets the generation guard allow bumps (see GenerationGuard)
        ExtentIndex index = h.volume().index().extents();
        int before = index.extentCount();
        int bucket = firstSealed(true);
        assertThat(h.set.space().allocator().evict(bucket)).isTrue();
        assertThat(index.extentCount()).isEqualTo(before);
        h.gcNow();
        assertThat(h.gc().stats().staleKeysDropped()).isEqualTo(32); // a 128 KiB bucket of 4 KiB extents
        assertThat(index.extentCount()).isEqualTo(before - 32);
        for (int i = 0; i < 100; i++) {
            assertThat(h.read(i, 1)).as("block %s", i).isEqualTo(GcHarness.block(i, 1));
        }
    }

    @Test
    void aBucketCountThatDisagreesWithTheIndexStopsTheCache() {
        // Proves the mark's invariant check: a wrong incremental count is a fail-stop with a precise message.
        for (int i = 0; i < 40; i++) {
            h.write(i, GcHarness.block(i, 1), false);
        }
        int bucket = firstSealed(false);
        h.set.space().table().addLive(bucket, -1, false); // as if a removal had been counted twice
        assertThatThrownBy(h::gcNow).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("GC mark: bucket " + bucket)
                .hasMessageContaining("but its index keys hold 256 live / 256 dirty sectors");
    }

    @Test
    void slicesHandleAtLeastTenNodesAndSleepOnlyWhileFrontEndIoIsInFlight() {
        // Proves the pacing of bcache's GC-latency patch: >= 10 leaves per slice; 10 ms sleeps between slices only
        // while the front end has I/O in flight; idle, the mark takes no time at all.
        h.gc().setConfig(h.gc().config().withWrittenFractionDenominator(1)); // no GC while filling
        for (int i = 0; i < 3000; i += 2) {
            h.write(i, GcHarness.block(i, 1), false);
        }
        long nodes = h.volume().index().extents().nodeCount();
        assertThat(nodes).isGreaterThan(10);
        long start = h.loop.nowNs();
        h.gc().gc(r -> { });
        h.loop.runUntil(() -> !h.gc().running());
        long idleDuration = h.loop.nowNs() - start;
        long slices = h.gc().stats().slicesLast();
        assertThat(slices).isBetween(2L, (nodes + 9) / 10);
        assertThat(idleDuration).isLessThan(10_000_000L);

        h.loop.runFor(10_000_000_000L); // GCs 10 s apart: 5 s budget, 500 sleeps, so the 10-node floor holds
        boolean[] stop = {false};
        long[] reads = {0};
        Runnable[] reader = new Runnable[1];
        reader[0] = () -> h.volume().read(1L << 20, ByteBuffer.allocate(4096), (IoCallback) r -> {
            reads[0]++;
            if (!stop[0]) {
                reader[0].run();
            }
        });
        reader[0].run();
        start = h.loop.nowNs();
        boolean[] done = {false};
        h.gc().gc(r -> done[0] = true);
        h.loop.runUntil(() -> done[0]);
        stop[0] = true;
        long busyDuration = h.loop.nowNs() - start;
        long busySlices = h.gc().stats().slicesLast();
        assertThat(busyDuration).isGreaterThanOrEqualTo((busySlices - 1) * 10_000_000L);
        assertThat(busySlices).isEqualTo(slices);
        assertThat(reads[0]).isGreaterThan(busySlices);
    }
}
