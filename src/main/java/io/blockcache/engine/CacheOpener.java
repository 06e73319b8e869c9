package io.blockcache.engine;

import io.blockcache.backinglog.BackingLogRegion;
import io.blockcache.backinglog.LogReplay;
import io.blockcache.device.BlockDevice;
import io.blockcache.format.AttachCheck;
import io.blockcache.format.AttachedBacking;
import io.blockcache.format.BackingHeader;
import io.blockcache.format.CacheSuperblock;
import io.blockcache.format.DamageMapBlock;
import io.blockcache.format.DamageMapGeometry;
import io.blockcache.format.SuperblockPair;
import io.blockcache.journal.CheckpointCursor;
import io.blockcache.journal.JournalRecovery;
import io.blockcache.loop.EventLoop;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * Opens a cache set: recovery (docs/FORMAT.md §8). Reads only, until everything checked out and was replayed in
 * memory; the first writes are the damage maps' marks of the recovered dirty data on the backing devices, then the
 * superblock repair or flag change at the very end. So a crash anywhere in
 * here is just another crash.
 *
 * <p>Steps: the metadata walk shared with {@code check} ({@link MetadataWalker}: superblocks, journal ring,
 * newest checkpoint's buckets), each backing header against the superblock's record of it; then
 * {@link RecoveryReplay} applies the checkpoint and the journal in bounded slices (the checkpoint verified as it is
 * decoded, whole before anything is written) and {@link CacheSetBuilder} wires the cache set. Every step reports
 * to a {@link RecoveryProgress}.
 */
final class CacheOpener {
    private final EventLoop loop;
    private final BlockDevice cacheDevice;
    private final List<BackingSpec> specs;
    private final CacheSetOptions options;
    private final RecoveryProgress progress;
    private final Consumer<Outcome<CacheSet>> done;
    private SuperblockPair pair;
    private final List<BackingSpec> ordered = new ArrayList<>();
    /** Per backing device in superblock order: its damage map area as read, or null if it has no room for one. */
    private final List<DamageMapSource> mapAreas = new ArrayList<>();
    /** Slots whose backing header is behind a grow the superblock records: rewritten before the volumes serve. */
    private final List<Integer> headersBehind = new ArrayList<>();
    private JournalRecovery journal;
    private List<byte[]> checkpointBuckets;

    private CacheOpener(EventLoop loop, BlockDevice cacheDevice, List<BackingSpec> specs, CacheSetOptions options,
                        RecoveryProgress progress, Consumer<Outcome<CacheSet>> done) {
        this.loop = loop;
        this.cacheDevice = cacheDevice;
        this.specs = specs;
        this.options = options;
        this.progress = progress;
        this.done = done;
    }

    static void open(EventLoop loop, BlockDevice cacheDevice, List<BackingSpec> specs, CacheSetOptions options,
                     RecoveryProgress progress, Consumer<Outcome<CacheSet>> done) {
        new CacheOpener(loop, cacheDevice, specs, options, progress, done).walkMetadata();
    }

    private void fail(String message) {
        progress.failed(message);
        done.accept(Outcome.failed(message));
    }

    private void walkMetadata() {
        progress.enter(RecoveryProgress.Phase.READING_METADATA, 0, loop.nowNs());
        MetadataWalker.walk(cacheDevice, loop::execute, walk -> {
            if (!walk.ok()) {
                fail(walk.failure());
                return;
            }
            pair = walk.pair();
            journal = walk.journal();
            checkpointBuckets = walk.checkpointBuckets();
            progress.enter(RecoveryProgress.Phase.CHECKING_BACKINGS, ordered.size(), loop.nowNs());
            String mismatch = matchBackings(pair.chosen());
            if (mismatch != null) {
                fail(mismatch);
                return;
            }
            checkBacking(0, new ArrayList<>());
        });
    }

    /** Puts the given backing devices in the superblock's order; says what is missing or extra. */
    private String matchBackings(CacheSuperblock superblock) {
        for (AttachedBacking attached : superblock.backings()) {
            BackingSpec match = null;
            for (BackingSpec spec : specs) {
                if (spec.name().equals(attached.exportName())) {
                    match = spec;
                }
            }
            if (match == null) {
                return "backing device for volume " + attached.volumeId() + " (\"" + attached.exportName()
                        + "\") of this cache set was not given; it may hold dirty data, so the cache will not open"
                        + " without it";
            }
            ordered.add(match);
        }
        for (BackingSpec spec : specs) {
            if (!ordered.contains(spec)) {
                return "backing device \"" + spec.name() + "\" is not attached to this cache set (attached: "
                        + superblock.backings().stream().map(AttachedBacking::exportName).toList() + ")";
            }
        }
        return null;
    }

    private void checkBacking(int index, List<String> refusals) {
        CacheSuperblock superblock = pair.chosen();
        if (index == ordered.size()) {
            if (!refusals.isEmpty()) {
                fail(String.join("; ", refusals));
                return;
            }
            replayBackingLogs(0);
            return;
        }
        BlockDevice device = ordered.get(index).device();
        if (superblock.backings().get(index).inPlace()) {
            // Cached in place: no header and no damage map on the device (FORMAT.md, backings cached in place).
            InPlaceCheck.check(device, superblock.backings().get(index), superblock.cleanShutdown(), refusal -> {
                if (refusal != null) {
                    refusals.add(refusal);
                }
                mapAreas.add(null);
                checkBacking(index + 1, refusals);
            });
            return;
        }
        AttachedBacking expected = superblock.backings().get(index);
        // The header and, in the same read, the damage map behind it (FORMAT.md §4.1).
        DamageMapGeometry geometry = DamageMapGeometry.of(expected.dataOffsetBytes(), expected.volumeSizeBytes());
        int mapBytes = geometry == null ? 0 : geometry.areaBytes();
        DeviceBytes.read(device, 0, BackingHeader.BYTES + mapBytes, read -> {
            if (!read.isOk()) {
                refusals.add("backing device \"" + expected.exportName() + "\": " + read.error());
                mapAreas.add(null);
            } else {
                var header = BackingHeader.decode(read.value(), 0);
                List<AttachCheck.Refusal> found = AttachCheck.check(header, expected, superblock.cacheSetUuid(),
                        device.sizeBytes());
                for (AttachCheck.Refusal refusal : found) {
                    refusals.add(refusal.message());
                }
                if (found.isEmpty() && AttachCheck.headerBehind(header.value(), expected)) {
                    headersBehind.add(index);
                }
                byte[] area = geometry == null ? null
                        : Arrays.copyOfRange(read.value(), BackingHeader.BYTES, BackingHeader.BYTES + mapBytes);
                BlockDevice mapDevice = ordered.get(index).mapDevice();
                if (area != null && mapDevice != null && options.damageMap()) {
                    readMapFile(index, refusals, mapDevice, Arrays.copyOf(read.value(), BackingHeader.BYTES), area);
                    return;
                }
                mapAreas.add(area == null ? null : DamageMapSource.onBacking(area));
            }
            checkBacking(index + 1, refusals);
        });
    }

    /**
     * The damage map lives in a file (docs/WRITEBACK.md "Where the map lives"): reads it, laid out as the backing
     * device's first bytes. A file holding another header (new, or of another device) counts as empty.
     */
    private void readMapFile(int index, List<String> refusals, BlockDevice mapDevice, byte[] header,
                             byte[] backingArea) {
        AttachedBacking expected = pair.chosen().backings().get(index);
        int bytes = header.length + backingArea.length;
        boolean backingMapValid = anyValidBlock(backingArea, expected);
        if (mapDevice.sizeBytes() < bytes) {
            refusals.add("damage map file of \"" + expected.exportName() + "\" is " + mapDevice.sizeBytes()
                    + " bytes, smaller than the " + bytes + " its map needs");
            mapAreas.add(null);
            checkBacking(index + 1, refusals);
            return;
        }
        DeviceBytes.read(mapDevice, 0, bytes, read -> {
            if (!read.isOk()) {
                refusals.add("damage map file of \"" + expected.exportName() + "\": " + read.error());
                mapAreas.add(null);
            } else if (Arrays.equals(read.value(), 0, header.length, header, 0, header.length)) {
                mapAreas.add(new DamageMapSource(Arrays.copyOfRange(read.value(), header.length, bytes), null,
                        backingMapValid));
            } else {
                mapAreas.add(new DamageMapSource(new byte[backingArea.length], header, backingMapValid));
            }
            checkBacking(index + 1, refusals);
        });
    }

    private static boolean anyValidBlock(byte[] area, AttachedBacking backing) {
        DamageMapGeometry geometry = DamageMapGeometry.of(backing.dataOffsetBytes(), backing.volumeSizeBytes());
        for (int b = 0; b < geometry.blockCount(); b++) {
            if (DamageMapBlock.choose(area, backing.backingUuid(), geometry, b).block() != null) {
                return true;
            }
        }
        return false;
    }

    /**
     * Puts in place the group each backing log may hold (docs/FORMAT.md §4.4), before anything can write a volume's
     * data: a power cut between a group's commit and its retire left the device holding part of it. A log that cannot
     * be replayed (damaged, unreadable) refuses the open with the reason.
     */
    private void replayBackingLogs(int index) {
        if (index == ordered.size()) {
            replay();
            return;
        }
        BackingLogRegion region = BackingLogs.region(pair.chosen().backings().get(index));
        if (region == null) {
            replayBackingLogs(index + 1);
            return;
        }
        LogReplay.run(ordered.get(index).device(), region, result -> {
            if (result.failure() != null) {
                fail("backing log of \"" + ordered.get(index).name() + "\": " + result.failure());
                return;
            }
            replayBackingLogs(index + 1);
        });
    }

    private void replay() {
        CacheSetBuilder builder = new CacheSetBuilder(loop, cacheDevice, ordered, options, pair.chosen(), journal,
                mapAreas);
        CheckpointCursor cursor;
        try {
            builder.prepare();
            cursor = journal.checkpoint() == null ? null
                    : new CheckpointCursor(journal.checkpoint(), checkpointBuckets);
        } catch (IllegalStateException | IllegalArgumentException e) {
            fail("recovery failed while replaying metadata: " + e.getMessage());
            return;
        }
        checkpointBuckets = null; // the cursor holds them; let them go with it
        long checkpointExtents = journal.checkpoint() == null ? 0 : journal.checkpoint().extentCount();
        new RecoveryReplay(loop, progress, builder.replayer(), cursor, journal.replay(), !pair.chosen().cleanShutdown(),
                builder.indexes(), builder.space(), failure -> {
                    if (failure != null) {
                        fail(failure);
                    } else {
                        wire(builder);
                    }
                }).start(checkpointExtents);
    }

    /** Runs the builder's wiring steps, each in a loop task of its own (a few ms each at 56,000 buckets). */
    private void wire(CacheSetBuilder builder) {
        wireStep(builder, builder.finishSteps(), 0);
    }

    private void wireStep(CacheSetBuilder builder, List<Runnable> steps, int next) {
        if (next == steps.size()) {
            wired(builder.finishedSet());
            return;
        }
        try {
            steps.get(next).run();
        } catch (IllegalStateException | IllegalArgumentException e) {
            // Replay found metadata that breaks an invariant: corruption the checksums did not catch. Fail-stop.
            fail("recovery failed while replaying metadata: " + e.getMessage());
            return;
        }
        loop.execute(() -> wireStep(builder, steps, next + 1)); // let the admin API and timers in between
    }

    private void wired(CacheSet set) {
        finishGrows(set, 0);
    }

    /**
     * Step 6, first write: the backing headers a grow left behind its superblock get the recorded size (the grow's
     * last step, docs/FORMAT.md §3 "Volumes attached and detached live"); the map file, if any, takes the new header
     * at open as for any map file whose header differs.
     */
    private void finishGrows(CacheSet set, int next) {
        if (next == headersBehind.size()) {
            markDamage(set);
            return;
        }
        int slot = headersBehind.get(next);
        AttachedBacking grown = pair.chosen().backings().get(slot);
        DeviceBytes.writeAndFlush(set.backingSpecs().get(slot).device(), 0,
                VolumeGrower.header(set, grown).encode(), written -> {
                    if (!written.ok()) {
                        fail("finishing the grow of \"" + grown.exportName() + "\" (its backing header) failed: "
                                + written.message());
                        return;
                    }
                    finishGrows(set, next + 1);
                });
    }

    private void markDamage(CacheSet set) {
        // Before any volume serves: every region holding dirty data is marked (WRITEBACK.md "When a device fails").
        set.markDamage(marked -> {
            if (!marked.ok()) {
                fail("writing the damage map at open failed: " + marked.message());
                return;
            }
            finishOpen(set);
        });
    }

    private void finishOpen(CacheSet set) {
        CacheSuperblock superblock = pair.chosen();
        if (!pair.otherNeedsRepair() && !superblock.cleanShutdown()) {
            serving(set);
            return;
        }
        // Repair a damaged copy, and clear the clean-shutdown flag so a crash from now on reads as unclean.
        set.rewriteSuperblock(0, result -> {
            if (result.ok()) {
                serving(set);
            } else {
                fail("rewriting the superblock at open failed: " + result.message());
            }
        });
    }

    private void serving(CacheSet set) {
        progress.enter(RecoveryProgress.Phase.DONE, 0, loop.nowNs());
        set.startWriteback(); // its timers fire only after this task, in which the caller sets its knobs
        done.accept(Outcome.ok(set));
    }
}
