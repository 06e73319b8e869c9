package io.blockcache.engine;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.format.AttachedBacking;
import io.blockcache.volume.DamageMap;
import io.blockcache.volume.Volume;
import io.blockcache.volume.VolumeIndex;
import io.blockcache.writeback.Writeback;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Detaches a volume from a running cache set (docs/FORMAT.md §3 "Volumes attached and detached live"). Order, so that
 * a crash anywhere leaves the volume attached (with what it held, or with its extents dropped and nothing dirty lost
 * that the operator did not discard) or detached, never a superblock without the volume over a journal that names it:
 * <ol>
 *   <li>refuse while it holds dirty data, unless discarding was asked for;</li>
 *   <li>close it (new requests fail) and wait, bounded, for its requests in flight; then write back what a request
 *       in flight dirtied, stop its writeback and flush its backing device;</li>
 *   <li>drop every extent of it (journaled removes), sweep and close its damage map, commit the journal;</li>
 *   <li>a checkpoint begun after that, without the volume: replay starts at or after it, so no record of the volume
 *       is replayed once the superblock no longer names it;</li>
 *   <li>both superblock copies without its slot: the commit point; then it is unwired.</li>
 * </ol>
 *
 * <p>Thread rule: the cache set's loop thread; one volume change at a time ({@link CacheSet#removeVolume}).
 */
final class VolumeDetacher {
    /** How long the detach waits for the volume's requests in flight once it is closed: as serve's stop waits. */
    static final long IDLE_WAIT_NS = 10_000_000_000L;
    /** How often it looks: 1 ms of loop time. */
    private static final long IDLE_POLL_NS = 1_000_000L;
    /** Sectors per journaled remove: 512 GiB, well inside the record's u32 length. */
    private static final int REMOVE_SECTORS_MAX = 1 << 30;

    private final CacheSet set;
    private final String name;
    private final boolean discardDirty;
    private final Consumer<Outcome<Void>> done;
    private final Volume volume;
    private final Writeback writeback;
    private final BlockDevice backing;

    private VolumeDetacher(CacheSet set, String name, boolean discardDirty, Consumer<Outcome<Void>> done, int slot) {
        this.set = set;
        this.name = name;
        this.discardDirty = discardDirty;
        this.done = done;
        this.volume = set.volumes().get(slot);
        this.writeback = set.writebacks().get(slot);
        this.backing = set.backingSpecs().get(slot).device();
    }

    static void detach(CacheSet set, String name, boolean discardDirty, Consumer<Outcome<Void>> done) {
        int slot = set.slotOf(name);
        String refusal = slot < 0 ? "no volume named \"" + name + "\" (volumes: " + set.exportNames() + ")"
                : set.volumes().size() == 1 ? "\"" + name + "\" is the cache set's only volume, and a cache set keeps"
                + " at least one; add another first"
                : null;
        if (refusal == null && !discardDirty) {
            long dirtyBytes = set.writebacks().get(slot).dirtyBytes();
            if (dirtyBytes > 0) {
                refusal = dirtyRefusal(name, dirtyBytes);
            }
        }
        if (refusal != null) {
            String why = refusal;
            set.loop().execute(() -> done.accept(Outcome.failed(why)));
            return;
        }
        new VolumeDetacher(set, name, discardDirty, done, slot).close();
    }

    private static String dirtyRefusal(String name, long dirtyBytes) {
        return "volume \"" + name + "\" holds " + dirtyBytes + " dirty bytes that are not on its backing store yet;"
                + " drain it first (blockcache volume remove " + name + " --drain), or give --discard-dirty to lose"
                + " them";
    }

    private void close() {
        volume.close();
        awaitIdle(set.loop().nowNs() + IDLE_WAIT_NS);
    }

    private void awaitIdle(long deadlineNs) {
        if (volume.counters().inFlight() == 0 && volume.backingWritesInFlight() == 0) {
            writeBackLeftovers();
            return;
        }
        if (set.loop().nowNs() >= deadlineNs) {
            fail("its requests in flight did not finish within " + IDLE_WAIT_NS / 1_000_000_000L + " s; the volume"
                    + " stays attached but closed until the next start");
            return;
        }
        set.loop().schedule(IDLE_POLL_NS, () -> awaitIdle(deadlineNs));
    }

    /** A write in flight when the volume closed may have left dirty data: written back unless it is discarded. */
    private void writeBackLeftovers() {
        if (discardDirty || writeback.dirtyBytes() == 0) {
            stopWriteback();
            return;
        }
        writeback.drain(progress -> { }, drained -> {
            if (!drained.ok()) {
                fail("writing back what its last requests dirtied failed: " + drained.message() + "; the volume"
                        + " stays attached but closed until the next start");
                return;
            }
            stopWriteback();
        });
    }

    private void stopWriteback() {
        writeback.stop(stopped -> backing.flush(flushed -> {
            if (!flushed.ok() && !discardDirty) {
                fail("flushing its backing store failed: " + flushed.message() + "; the volume stays attached but"
                        + " closed until the next start");
                return;
            }
            dropExtents();
        }));
    }

    private void dropExtents() {
        boolean discarding = writeback.dirtyBytes() > 0;
        VolumeIndex index = volume.index();
        long sectors = volume.sizeBytes() / BlockDevice.SECTOR_BYTES;
        for (long start = 0; start < sectors; start += REMOVE_SECTORS_MAX) {
            index.remove(start, (int) Math.min(REMOVE_SECTORS_MAX, sectors - start));
        }
        DamageMap damage = volume.damageMap();
        IoCallback commit = ignored -> set.journal().commit(committed -> {
            if (!committed.ok()) {
                fail("committing the removal of its extents failed: " + committed.message());
                return;
            }
            checkpointWithout();
        });
        if (damage == null) {
            set.loop().execute(() -> commit.complete(IoResult.OK));
        } else if (discarding) {
            damage.close(); // the discarded regions stay marked: the backing store may be older there
            set.loop().execute(() -> commit.complete(IoResult.OK));
        } else {
            damage.sweep(swept -> {
                damage.close(); // a failed clear leaves a region marked, which is safe
                commit.complete(IoResult.OK);
            });
        }
    }

    private void checkpointWithout() {
        set.checkpoints().removeVolume(volume.volumeId());
        set.checkpoints().startAfterNow(checkpointed -> {
            if (!checkpointed.ok()) {
                fail("the checkpoint without it failed: " + checkpointed.message());
                return;
            }
            int slot = set.slotOf(name);
            List<AttachedBacking> slots = new ArrayList<>(set.superblock().backings());
            slots.remove(slot);
            set.rewriteSlots(slots, written -> {
                if (!written.ok()) {
                    fail("writing the superblock without it failed: " + written.message());
                    return;
                }
                set.unwired(slot);
                done.accept(Outcome.ok(null));
            });
        });
    }

    private void fail(String why) {
        done.accept(Outcome.failed("removing volume \"" + name + "\": " + why));
    }
}
