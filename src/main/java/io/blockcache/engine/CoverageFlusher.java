package io.blockcache.engine;

import io.blockcache.cache.CacheSpace;
import io.blockcache.cache.CleanCoverage;
import io.blockcache.device.IoJoin;
import io.blockcache.format.JournalRecord;
import io.blockcache.journal.JournalWriter;
import io.blockcache.loop.EventLoop;
import io.blockcache.loop.Timer;
import java.util.List;

/**
 * Keeps clean copies warm across a crash (docs/FORMAT.md §7 rules 7 and 10): once an interval
 * ({@link CacheSetOptions#cleanCoverIntervalNs}, 1 s by default), if clean
 * data was reserved since the last round, notes what the clean write point has reserved so far, flushes every backing
 * device, and when every flush succeeded appends a {@code CleanCovered} record per bucket the round covered. A clean
 * copy's space is reserved only after its backing read or write completed, so the flush covers exactly that prefix.
 * A failed flush covers nothing; its buckets wait for the next round.
 *
 * <p>Cost: a backing flush a second while fills arrive (a flush with nothing in the device's write cache is
 * cheap) and a 9-byte journal record per covered bucket, carried by the next journal write.
 *
 * <p>Thread rule: the cache's loop thread.
 */
final class CoverageFlusher {
    private final EventLoop loop;
    private final CacheSpace space;
    private final JournalWriter journal;
    private final List<BackingSpec> backings;
    private final long intervalNs;
    private Timer timer;
    private boolean flushing;
    private boolean stopped;
    private long rounds;

    /** @param intervalNs time between rounds; 0: no rounds (nothing is ever covered) */
    CoverageFlusher(EventLoop loop, CacheSpace space, JournalWriter journal, List<BackingSpec> backings,
                    long intervalNs) {
        this.intervalNs = intervalNs;
        this.loop = loop;
        this.space = space;
        this.journal = journal;
        this.backings = backings;
    }

    /** Starts the rounds. */
    void start() {
        if (intervalNs == 0) {
            return;
        }
        timer = loop.schedule(intervalNs, this::round);
    }

    /** Stops the rounds (shutdown): nothing is appended from now on. */
    void stop() {
        stopped = true;
        if (timer != null) {
            timer.cancel();
        }
    }

    /**
     * Rounds that ended with every clean copy reserved before they began covered (by their flush, or already),
     * since the open: once this grows by two, everything filled before the first look is covered.
     */
    long rounds() {
        return rounds;
    }

    private void round() {
        timer = null;
        if (stopped) {
            return;
        }
        CleanCoverage coverage = space.allocator().cleanCoverage();
        if (flushing || journal.failed()) {
            timer = loop.schedule(intervalNs, this::round);
            return;
        }
        if (!coverage.anythingToCover(space.cleanWritePoint())) {
            rounds++; // everything reserved before this round began is covered already: no flush needed
            timer = loop.schedule(intervalNs, this::round);
            return;
        }
        flushing = true;
        CleanCoverage.Snapshot snapshot = coverage.snapshot(space.cleanWritePoint());
        IoJoin join = new IoJoin(result -> {
            flushing = false;
            if (stopped) {
                return;
            }
            if (result.ok()) {
                covered(coverage, snapshot);
                rounds++;
            } else {
                coverage.flushFailed(snapshot, space.cleanWritePoint());
            }
            timer = loop.schedule(intervalNs, this::round);
        });
        for (BackingSpec backing : backings) {
            backing.device().flush(join.add());
        }
        join.seal();
    }

    /** Appends the coverage of every bucket of the round that still has the generation the round saw. */
    private void covered(CleanCoverage coverage, CleanCoverage.Snapshot snapshot) {
        for (int i = 0; i < snapshot.count(); i++) {
            int bucket = snapshot.bucket(i);
            int generation = snapshot.generation(i);
            int sectors = snapshot.sectors(i);
            if (space.generation(bucket) == generation && sectors > coverage.coveredSectors(bucket)) {
                journal.append(new JournalRecord.CleanCovered(bucket, generation, sectors));
                coverage.cover(bucket, sectors);
            }
        }
    }
}
