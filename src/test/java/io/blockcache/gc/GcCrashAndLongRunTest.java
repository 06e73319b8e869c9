package io.blockcache.gc;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.cache.BucketState;
import io.blockcache.loop.Prng;
import io.blockcache.volume.CacheMode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class GcCrashAndLongRunTest {
    // 4 MiB of volume against 7.5 MiB of cache: dirty data (no writeback engine yet) never fills the cache, so
    // no write goes around it. Write-through and write-around overwrites of flushed dirty data are left out:
    // they can lose it in a crash without any GC (see the report; the volume owns that path).
    private static final int BLOCKS = 1024;

    /** Aggressive GC: evict below 30 % free, move buckets up to 50 % live at any occupancy, bound 64 gens. */
    private static GcConfig aggressive() {
        return GcConfig.defaults().withFreePercents(30, 40).withMoving(50, 16, 100).withGenerationDistanceMax(64)
                .withWrittenFractionDenominator(64);
    }

    @Test
    void crashesDuringForcedGcNeverReadBackUnwrittenDataNorLoseFlushedData() {
        // Proves the durability contract under GC: with GC, eviction and moving forced often and power cuts in
        // the middle of them, every sector reads back a version written there no older than its last flush.
        long seed = 6006;
        Prng prng = new Prng(seed);
        GcHarness h = new GcHarness();
        if (!Boolean.getBoolean("nogc")) {
            h.gc().setConfig(aggressive());
        }
        List<List<Long>> possible = new ArrayList<>(); // per block: versions it may hold after a crash
        long[] latest = new long[BLOCKS];
        for (int b = 0; b < BLOCKS; b++) {
            possible.add(new ArrayList<>(List.of(0L)));
        }
        long version = 0;
        long evicted = 0;
        long moved = 0;
        long gcRuns = 0;
        for (int round = 0; round < 6; round++) {
            for (int step = 0; step < 400; step++) {
                int block = prng.nextInt(BLOCKS);
                int op = prng.nextInt(100);
                String where = "seed " + seed + " round " + round + " step " + step + " block " + block;
                if (op < 55) {
                    version++;
                    boolean fua = prng.chance(0.1);
                    assertThat(h.volume().stats().writeBypassedSectors()).as(where).isZero();
                    h.write(block, GcHarness.block(block, version), fua);
                    latest[block] = version;
                    if (fua) {
                        possible.get(block).clear();
                    }
                    possible.get(block).add(version);
                } else if (op < 90) {
                    byte[] read = h.read(block, 1);
                    for (int s = 0; s < 8; s++) {
                        assertThat(GcHarness.versionOf(read, 0, block, s)).as(where + " sector " + s)
                                .isEqualTo(latest[block]);
                    }
                } else if (op < 94) {
                    h.flush();
                    for (int b = 0; b < BLOCKS; b++) {
                        possible.get(b).clear();
                        possible.get(b).add(latest[b]);
                    }
                } else if (op < 97 && !Boolean.getBoolean("nogc")) {
                    h.gc().gc(r -> { }); // forced, not awaited: it runs among the next requests
                } else {
                    h.read(BLOCKS + prng.nextInt(4096), 1); // a miss: a clean fill, which eviction may take
                }
            }
            evicted += h.set.space().allocator().bucketsEvicted();
            moved += h.gc().stats().movedBytes();
            gcRuns += h.gc().stats().runs();
            // Crash in the middle of a GC: start one and cut the power a random number of events in.
            h.gc().gc(r -> { });
            int events = prng.nextInt(400);
            for (int e = 0; e < events && h.loop.step(); e++) {
                // run the GC part-way
            }
            h.crashAndReopen(prng.split());
            if (!Boolean.getBoolean("nogc")) {
                h.gc().setConfig(aggressive());
            }
            for (int b = 0; b < BLOCKS; b++) {
                byte[] read = h.read(b, 1);
                long found = -2;
                for (int s = 0; s < 8; s++) {
                    long sectorVersion = GcHarness.versionOf(read, 0, b, s);
                    assertThat(possible.get(b)).as("seed %s round %s block %s sector %s", seed, round, b, s)
                            .contains(sectorVersion);
                    found = sectorVersion;
                }
                // Sectors may differ after a torn write; the block now holds what was read.
                possible.get(b).clear();
                possible.get(b).add(found);
                latest[b] = found;
                boolean mixed = false;
                for (int s = 0; s < 8; s++) {
                    mixed |= GcHarness.versionOf(read, 0, b, s) != found;
                }
                if (mixed) { // rewrite whole so the model keeps one version per block
                    version++;
                    h.write(b, GcHarness.block(b, version), true);
                    latest[b] = version;
                    possible.get(b).set(0, version);
                }
            }
        }
        assertThat(gcRuns).as("GC runs").isGreaterThan(20);
        assertThat(evicted).as("buckets evicted").isPositive();
        assertThat(moved).as("bytes moved").isPositive();
    }

    @Test
    void aWorkingSetSeveralTimesTheCacheKeepsTheHotSetCachedAndEveryReadRight() {
        // Proves eviction keeps the cache caching: 3x-the-cache working set in write-through, a hot set read
        // often stays hit, occupancy stays bounded, every read matches the reference.
        long seed = 7007;
        Prng prng = new Prng(seed);
        GcHarness h = new GcHarness();
        h.volume().setMode(CacheMode.WRITETHROUGH);
        int blocks = 6144; // 24 MiB
        int hot = 128;     // 512 KiB
        long[] latest = new long[blocks];
        long version = 0;
        long hotReads = 0;
        long hotHits = 0;
        int freeMin = Integer.MAX_VALUE;
        for (int step = 0; step < 12000; step++) {
            boolean hotOp = prng.chance(0.5);
            int block = hotOp ? prng.nextInt(hot) : hot + prng.nextInt(blocks - hot);
            if (!hotOp && prng.chance(0.6) || latest[block] == 0) {
                version++;
                h.write(block, GcHarness.block(block, version), false);
                latest[block] = version;
            } else {
                long hitsBefore = h.volume().stats().readHitSectors();
                byte[] read = h.read(block, 1);
                assertThat(read).as("seed %s step %s block %s", seed, step, block)
                        .isEqualTo(GcHarness.block(block, latest[block]));
                if (hotOp && step >= 6000) {
                    hotReads++;
                    hotHits += h.volume().stats().readHitSectors() - hitsBefore == 8 ? 1 : 0;
                }
            }
            if (step >= 6000) {
                freeMin = Math.min(freeMin, h.set.space().allocator().freeBuckets());
            }
            if (step % 500 == 0) {
                h.loop.runFor(50_000_000L); // let time pass so that recency ticks advance
            }
        }
        assertThat(h.set.space().allocator().bucketsEvicted()).as("eviction ran").isGreaterThan(20);
        assertThat((double) hotHits / hotReads).as("hot-set hit ratio").isGreaterThan(0.9);
        assertThat(freeMin).as("free buckets never ran out").isPositive();
        BucketCounts counts = h.gc().bucketCounts();
        assertThat(counts.clean() + counts.open()).as("the cache is still caching").isGreaterThan(20);
        assertThat(h.set.space().table().count(BucketState.SEALED)).isLessThanOrEqualTo(60);
    }
}
