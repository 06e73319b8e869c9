package io.blockcache.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.cache.CacheSpace;
import io.blockcache.cache.WritePoint;
import io.blockcache.device.IoResult;
import io.blockcache.device.MemoryDevice;
import io.blockcache.loop.Prng;
import io.blockcache.loop.SimLoop;
import io.blockcache.volume.Volume;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** Recovery replays in bounded slices that leave the loop to other tasks, after a clean stop and after a crash. */
class RecoveryReplayTest {
    private static final CacheSetOptions OPTIONS = CacheSetOptions.defaults().withBucketSizeBytes(128 << 10);
    private static final Set<RecoveryProgress.Phase> REPLAY_PHASES = EnumSet.of(RecoveryProgress.Phase.CHECKPOINT,
            RecoveryProgress.Phase.JOURNAL, RecoveryProgress.Phase.DROPPING_CLEAN, RecoveryProgress.Phase.RECOUNTING);
    /** Extents per batch between journal commits while filling. */
    private static final int FILL_BATCH = 2_000;
    /** Bound on the ticker's turns: far above what a recovery of these sizes needs. */
    private static final int TICKS_MAX = 10_000_000;

    private final SimLoop loop = new SimLoop();
    private final MemoryDevice cache = new MemoryDevice(loop, 64L << 20, 512);
    private final MemoryDevice backing = new MemoryDevice(loop, 65L << 20, 512);
    private final List<BackingSpec> backings = List.of(new BackingSpec("default", backing));

    @Test
    void aCleanStopReplaysEveryExtentInSlicesOfAtMostTheBoundWithOtherTasksBetween() {
        // Proves the slice bound in work units and that the loop runs other tasks between slices (a clean stop).
        // 20,000 one-sector clean extents: since clean inserts are journaled, a checkpoint runs during the fill and
        // holds its buckets, and the shutdown checkpoint must fit in the other half of the metadata reserve (30,000
        // needed 7 of its 6 buckets: docs/FORMAT.md §7 rule 3).
        int extents = 20_000;
        CacheSet set = formatAndOpen();
        fill(set, extents, false);
        assertThat(await((Consumer<IoResult> done) -> set.shutdown(done::accept))).isEqualTo(IoResult.OK);

        RecoveryProgress progress = new RecoveryProgress();
        int[] ticksDuringReplay = new int[1];
        CacheSet reopened = openWithTicker(progress, ticksDuringReplay);

        assertThat(reopened.volumes().get(0).index().extents().extentCount()).isEqualTo(extents);
        assertThat(progress.phase()).isEqualTo(RecoveryProgress.Phase.DONE);
        assertThat(progress.extentsTotal()).isEqualTo(extents);
        assertThat(progress.extentsReplayed()).isEqualTo(extents);
        assertThat(progress.sliceUnitsPeak()).isPositive().isLessThanOrEqualTo(RecoveryReplay.SLICE_UNITS_MAX);
        // 20,000 checkpoint extents at <= 4096 per slice, then the recount walk over them again.
        assertThat(progress.slices()).isGreaterThanOrEqualTo(2L * extents / RecoveryReplay.SLICE_UNITS_MAX);
        assertThat(ticksDuringReplay[0]).as("other tasks ran between replay slices")
                .isGreaterThanOrEqualTo((int) progress.slices() - 1);
    }

    @Test
    void afterACrashTheJournalTailIsReplayedInSlicesAndCleanExtentsAreDropped() {
        // Proves the crash case: dirty extents from checkpoint + journal survive, clean ones go (FORMAT.md §7 rule 10).
        int dirty = 12_000;
        int clean = 5_000;
        CacheSet set = formatAndOpen();
        fill(set, dirty, true);
        fillClean(set, dirty, clean);
        assertThat(await((Consumer<IoResult> done) -> set.journal().commit(done::accept))).isEqualTo(IoResult.OK);
        loop.discardPending(); // power cut: no shutdown checkpoint, no clean flag

        RecoveryProgress progress = new RecoveryProgress();
        int[] ticksDuringReplay = new int[1];
        CacheSet reopened = openWithTicker(progress, ticksDuringReplay);

        assertThat(reopened.volumes().get(0).index().extents().extentCount()).isEqualTo(dirty);
        assertThat(reopened.volumes().get(0).index().extents().dirtySectors()).isEqualTo(dirty);
        assertThat(reopened.checkpointsWritten()).isZero();
        assertThat(progress.extentsReplayed()).isEqualTo(progress.extentsTotal()).isGreaterThanOrEqualTo(dirty);
        assertThat(progress.sliceUnitsPeak()).isPositive().isLessThanOrEqualTo(RecoveryReplay.SLICE_UNITS_MAX);
        assertThat(ticksDuringReplay[0]).isGreaterThanOrEqualTo((int) progress.slices() - 1);
    }

    private CacheSet formatAndOpen() {
        Outcome<Void> formatted = await(done -> CacheSet.format(loop, cache, backings, OPTIONS, new Prng(3),
                fraction -> { }, done));
        assertThat(formatted.error()).isNull();
        Outcome<CacheSet> opened = await(done -> CacheSet.open(loop, cache, backings, OPTIONS, done));
        assertThat(opened.error()).isNull();
        CacheSet set = opened.value();
        set.knobs().find("writeback.default.running").set("false");
        return set;
    }

    /**
     * Opens again while a ticker task re-posts itself, counting its turns that fall inside replay phases and
     * checking, from outside the replay's own accounting, that no more than a slice's bound of extents was applied
     * between two turns.
     */
    private CacheSet openWithTicker(RecoveryProgress progress, int[] ticksDuringReplay) {
        int[] ticks = new int[1];
        long[] lastReplayed = new long[1];
        long[] mostBetweenTicks = new long[1];
        Runnable[] ticker = new Runnable[1];
        ticker[0] = () -> {
            if (REPLAY_PHASES.contains(progress.phase())) {
                ticksDuringReplay[0]++;
            }
            mostBetweenTicks[0] = Math.max(mostBetweenTicks[0], progress.extentsReplayed() - lastReplayed[0]);
            lastReplayed[0] = progress.extentsReplayed();
            boolean over = progress.phase() == RecoveryProgress.Phase.DONE
                    || progress.phase() == RecoveryProgress.Phase.FAILED;
            if (!over && ++ticks[0] < TICKS_MAX) {
                loop.execute(ticker[0]);
            }
        };
        Outcome<CacheSet> opened = await(done -> {
            CacheSet.open(loop, cache, backings, OPTIONS, progress, done);
            loop.execute(ticker[0]);
        });
        assertThat(opened.error()).as("open").isNull();
        assertThat(mostBetweenTicks[0]).as("extents applied between two turns of the ticker").isPositive()
                .isLessThanOrEqualTo(RecoveryReplay.SLICE_UNITS_MAX);
        return opened.value();
    }

    /** Inserts one-sector extents at sectors 0, 2, 4, ... as the write path would (dirty ones journaled). */
    private void fill(CacheSet set, int count, boolean dirty) {
        for (int from = 0; from < count; from += FILL_BATCH) {
            int to = Math.min(count, from + FILL_BATCH);
            insert(set, from, to, dirty);
            assertThat(await((Consumer<IoResult> done) -> set.journal().commit(done::accept))).isEqualTo(IoResult.OK);
        }
    }

    /**
     * Clean extents are journaled too (docs/FORMAT.md §7 rule 10), so they go in batches with a commit between, as
     * fills arriving over many loop turns do: 5,000 records appended in one task outgrew this small ring.
     */
    private void fillClean(CacheSet set, int from, int count) {
        for (int at = from; at < from + count; at += FILL_BATCH) {
            insert(set, at, Math.min(from + count, at + FILL_BATCH), false);
            assertThat(await((Consumer<IoResult> done) -> set.journal().commit(done::accept))).isEqualTo(IoResult.OK);
        }
    }

    private void insert(CacheSet set, int from, int to, boolean dirty) {
        CacheSpace space = set.space();
        Volume volume = set.volumes().get(0);
        WritePoint writePoint = dirty ? space.dirtyWritePoint() : space.cleanWritePoint();
        WritePoint.Reservation reservation = new WritePoint.Reservation();
        for (int i = from; i < to; i++) {
            assertThat(writePoint.reserve(1, reservation)).isTrue();
            int bucket = reservation.bucket();
            volume.index().insertPiece(2L * i, 1, bucket, reservation.offsetSectors(), space.currentGeneration(bucket),
                    dirty, i, 0, 1);
            space.allocator().unpin(bucket);
        }
    }

    private <T> T await(Consumer<Consumer<T>> op) {
        return SimCacheSet.await(loop, op);
    }
}
