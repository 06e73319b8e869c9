package io.blockcache.engine;

import static io.blockcache.loop.Checks.check;

import io.blockcache.cache.BucketState;
import io.blockcache.cache.BucketTable;
import io.blockcache.cache.CacheLayout;
import io.blockcache.cache.CacheSpace;
import io.blockcache.cache.CleanCoverage;
import io.blockcache.device.BlockDevice;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoJoin;
import io.blockcache.device.FencedDevice;
import io.blockcache.device.StickyFlushDevice;
import io.blockcache.format.AttachedBacking;
import io.blockcache.format.CacheSuperblock;
import io.blockcache.format.JournalScanner;
import io.blockcache.gc.CheckpointPort;
import io.blockcache.gc.GarbageCollector;
import io.blockcache.gc.GcConfig;
import io.blockcache.index.ExtentIndex;
import io.blockcache.journal.CheckpointWriter;
import io.blockcache.journal.JournalRecovery;
import io.blockcache.journal.JournalRing;
import io.blockcache.journal.JournalWriter;
import io.blockcache.loop.EventLoop;
import io.blockcache.volume.CoveredWrites;
import io.blockcache.volume.DirtyEpochs;
import io.blockcache.volume.Volume;
import io.blockcache.volume.VolumeIndex;
import io.blockcache.writeback.Writeback;
import io.blockcache.writeback.WritebackSettings;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Wires a cache set from what recovery read, in two halves around the sliced replay ({@link RecoveryReplay}, which
 * applies the checkpoint and the journal, drops stale keys and recounts every bucket's live and dirty sectors):
 * {@link #prepare} makes the empty structures, {@link #finish} gives each bucket its state and connects journal,
 * space, checkpoints and volumes.
 */
final class CacheSetBuilder {
    private final EventLoop loop;
    private final BlockDevice cacheDevice;
    private final List<BackingSpec> backings;
    private final CacheSetOptions options;
    private final CacheSuperblock superblock;
    private final JournalRecovery recovery;
    private final Map<Integer, ExtentIndex> indexes = new LinkedHashMap<>();
    private final Map<Integer, DirtyEpochs> recoveredEpochs = new LinkedHashMap<>();
    private CacheLayout layout;
    private BucketTable table;
    private JournalWriter journal;
    private CacheSpace space;
    private final List<DamageMapSource> mapAreas;
    // Built by the wiring steps of finishSteps(), in order.
    private List<Integer> checkpointBuckets;
    private CheckpointWriter checkpoints;
    /** The order every backing data write keeps behind the removal of covered clean copies (FORMAT.md §7 rule 10). */
    private CoveredWrites coveredWrites;
    private final List<Volume> volumes = new ArrayList<>();
    private final List<Writeback> writebacks = new ArrayList<>();
    private CacheSet finished;

    /**
     * @param mapAreas per backing device, in superblock order: its damage map area as read at open (or null when
     *     the device has no room for a map)
     */
    CacheSetBuilder(EventLoop loop, BlockDevice cacheDevice, List<BackingSpec> backings, CacheSetOptions options,
                    CacheSuperblock superblock, JournalRecovery recovery, List<DamageMapSource> mapAreas) {
        this.mapAreas = mapAreas;
        this.loop = loop;
        this.cacheDevice = cacheDevice;
        // Flush errors stick per backing device (StickyFlushDevice): every user of a backing device sees them. A
        // replicated volume's backing is fenced below that (FencedDevice): a refused flush sticks too.
        this.backings = backings.stream().map(spec -> VolumeWiring.wrapped(loop, spec, options))
                .collect(java.util.stream.Collectors.toCollection(ArrayList::new));
        this.options = options;
        this.superblock = superblock;
        this.recovery = recovery;
    }

    /**
     * Creates the empty structures the replay fills (bucket table, journal writer, space, one index per volume),
     * with incremental counting off until {@link #finish}. Nothing is read or written.
     */
    void prepare() {
        layout = new CacheLayout(superblock.dataStartBytes(), superblock.bucketSizeBytes(), superblock.bucketCount());
        table = new BucketTable(superblock.bucketCount(), layout.bucketSectors());
        CacheSpace[] spaceRef = new CacheSpace[1];
        JournalRing ring = new JournalRing(superblock.bucketOffsetBytes(superblock.journalFirstBucket()),
                superblock.bucketSizeBytes(), superblock.journalBuckets());
        for (JournalScanner.ScannedEntry walked : recovery.walked()) {
            ring.noteEntry(walked.ringOffsetBytes(), walked.entry().sequence());
        }
        journal = new JournalWriter(loop, cacheDevice, ring, recovery.next(), options.journalDelayNs(),
                Math.min(options.journalEntryBytesMax(), superblock.bucketSizeBytes()),
                Geometry.checkpointBucketsMax(superblock.bucketCount()),
                sequence -> spaceRef[0].allocator().onJournalDurable(sequence));
        space = new CacheSpace(layout, table, journal);
        space.allocator().setReuseWanted(() -> journal.commit(committed -> { })); // failures stick in the journal
        spaceRef[0] = space;
        for (AttachedBacking attached : superblock.backings()) {
            indexes.put(attached.volumeId(), new ExtentIndex(space, options.verifyIndexEachOperation()));
            recoveredEpochs.put(attached.volumeId(), DirtyEpochs.forRecovery());
        }
        space.setCounting(false);
    }

    /** What the replay applies the checkpoint and the journal through. */
    Replayer replayer() {
        return new Replayer(table, indexes, recoveredEpochs, space.allocator().blockChecksums(),
                space.allocator().cleanCoverage());
    }

    /** The volumes' indexes, in superblock order. */
    List<ExtentIndex> indexes() {
        return List.copyOf(indexes.values());
    }

    /** The space whose generations and recount the replay uses. */
    CacheSpace space() {
        return space;
    }

    /**
     * After the replay (stale keys dropped, buckets recounted): gives every bucket its state and wires journal,
     * space, checkpoints, volumes, writeback and GC, in steps that each run in a loop task of their own. Each is
     * O(buckets) and runs once per open, before the JIT has compiled it: at 56,000 buckets after a crash the whole
     * wiring took 12–13 ms in one task (writeback's and GC's per-bucket state ~4 ms each, bucket states and the free
     * set ~3 ms), so the admin API waited longer than the 10 ms recovery goal allows. Call the steps in order, each
     * after the previous one returned; {@link #finishedSet()} after the last.
     *
     * @throws IllegalStateException from a step, if replay left a bucket that breaks an invariant
     */
    List<Runnable> finishSteps() {
        return List.of(this::finishSpace, this::finishVolumes, this::finishWritebacks, this::finishSet);
    }

    /** The wired set, once every step of {@link #finishSteps()} ran. */
    CacheSet finishedSet() {
        check(finished != null, "cache set asked for before its wiring finished");
        return finished;
    }

    private void finishSpace() {
        checkpointBuckets = recovery.checkpoint() == null ? List.of() : recovery.checkpoint().buckets();
        assignStates(table, checkpointBuckets);
        CleanCoverage coverage = space.allocator().cleanCoverage();
        coverage.markRecordedBeforeOpen();
        if (superblock.cleanShutdown()) {
            coverClean(coverage);
        }
        space.setCounting(true);
        space.allocator().rebuildFreeSet();
        space.allocator().quarantineDropped(); // until the checkpoint the set starts once it serves (FORMAT.md §7)
        int dataBuckets = superblock.bucketCount() - superblock.journalBuckets();
        space.allocator().setMetadataReserveBuckets(
                Geometry.metadataReserveBuckets(dataBuckets, superblock.bucketSizeBytes()));
    }

    private void finishVolumes() {
        checkpoints = new CheckpointWriter(cacheDevice, journal, space, this::flushBackings, checkpointBuckets);
        int dataBuckets = superblock.bucketCount() - superblock.journalBuckets();
        int bucketSizeBytes = superblock.bucketSizeBytes();
        CheckpointWriter writer = checkpoints;
        space.allocator().setMetadataReserve(() -> Geometry.metadataReserveBuckets(dataBuckets, bucketSizeBytes,
                writer.extentCount()));
        space.allocator().recoveredCheckpoint(checkpointBuckets.size());
        coveredWrites = new CoveredWrites(loop, space.allocator().cleanCoverage(), journal);
        for (int i = 0; i < superblock.backings().size(); i++) {
            AttachedBacking attached = superblock.backings().get(i);
            ExtentIndex index = indexes.get(attached.volumeId());
            VolumeIndex volumeIndex = new VolumeIndex(attached.volumeId(), index, journal, space);
            volumeIndex.restoreEpochs(recoveredEpochs.get(attached.volumeId()));
            checkpoints.addVolume(attached.volumeId(), index, volumeIndex::recordedEpochAt);
            volumes.add(VolumeWiring.volume(loop, cacheDevice, space, journal, attached, volumeIndex, backings.get(i),
                    mapAreas.get(i), options, VolumeModes.of(attached, options), coveredWrites));
        }
        journal.setPressureListener(new CheckpointTrigger(loop, journal, checkpoints));
        recoveredEpochs.clear(); // handed over; the volumes forget them once unused
    }

    private void finishWritebacks() {
        long totalBytes = 0;
        for (Volume volume : volumes) {
            totalBytes += volume.sizeBytes();
        }
        for (int i = 0; i < volumes.size(); i++) {
            Volume volume = volumes.get(i);
            // bcache weighs each backing device's dirty target by its share of the backing capacity.
            writebacks.add(new Writeback(loop, volume, space, journal, (double) volume.sizeBytes() / totalBytes,
                    WritebackSettings.defaults(), BackingLogs.region(superblock.backings().get(i))));
        }
    }

    private void finishSet() {
        CacheSet set = new CacheSet(loop, cacheDevice, backings, superblock, space, journal, checkpoints, volumes,
                writebacks, options);
        set.attachCoverage(new CoverageFlusher(loop, space, journal, backings,
                options.cleanCoverIntervalNs()));
        set.attachCoveredWrites(coveredWrites);
        set.attachGc(new GarbageCollector(loop, cacheDevice, space, volumes.stream().map(Volume::index).toList(),
                CheckpointPort.of(checkpoints), set::anyRequestInFlight, GcConfig.defaults()));
        finished = set;
    }

    /**
     * After a clean stop every clean extent is trusted (docs/FORMAT.md §7 rule 8: the shutdown checkpoint flushed the
     * backing devices first), so every sealed bucket holding clean data counts as covered; the next checkpoint makes
     * that durable. Without this, a cache stopped cleanly by a build without coverage, or whose coverage was not in
     * its checkpoint, would lose all its clean data at the first crash after the restart.
     */
    private void coverClean(CleanCoverage coverage) {
        for (int b = 0; b < table.bucketCount(); b++) {
            if (table.liveSectors(b) > table.dirtySectors(b)) {
                coverage.cover(b, table.bucketSectors());
            }
        }
    }

    private void assignStates(BucketTable table, List<Integer> checkpointBuckets) {
        for (int b = 0; b < table.bucketCount(); b++) {
            table.setState(b, table.liveSectors(b) > 0 ? BucketState.SEALED : BucketState.FREE);
        }
        for (int b = superblock.journalFirstBucket(); b < superblock.journalFirstBucket() + superblock.journalBuckets();
                b++) {
            check(table.liveSectors(b) == 0, "journal bucket %s holds extents", b);
            table.setState(b, BucketState.JOURNAL);
        }
        for (int b : checkpointBuckets) {
            check(table.liveSectors(b) == 0, "checkpoint bucket %s holds extents", b);
            table.setState(b, BucketState.METADATA);
        }
    }

    private void flushBackings(IoCallback done) {
        IoJoin join = new IoJoin(done);
        for (BackingSpec backing : backings) {
            backing.device().flush(join.add());
        }
        join.seal();
    }
}
