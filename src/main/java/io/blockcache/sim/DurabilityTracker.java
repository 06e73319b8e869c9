package io.blockcache.sim;

import static io.blockcache.loop.Checks.check;
import io.blockcache.device.BlockDevice;
import io.blockcache.loop.Checks;
import io.blockcache.loop.Prng;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The contents of one simulated device, split into what a reader sees ({@code visible}: every completed
 * write) and what survives a power cut ({@code durable}), plus the bounded record of writes in between.
 *
 * <p>A write is recorded when it is submitted ({@link #begin}), becomes visible when the device
 * acknowledges it ({@link #complete}) and leaves the record when the model puts it on stable media
 * ({@link #makeDurable}: a FUA or write-through completion, a destage, a flush). The record is bounded by
 * the device: its volatile cache size plus the writes in flight.
 *
 * <p>Thread rule: the simulation driver's thread.
 */
final class DurabilityTracker {
    private SectorStore durable = new SectorStore();
    private SectorStore visible = new SectorStore();
    // Issue order: the order a crash image applies the survivors in.
    private final Map<Long, PendingWrite> notDurable = new LinkedHashMap<>();
    // Completed but still volatile, by completion order: what flushes wait for.
    private final TreeMap<Long, PendingWrite> completedVolatile = new TreeMap<>();
    private long completedVolatileBytes;
    private long nextSequence = 1;
    private long lastCompletionOrder;

    /** Records a write at submission, copying {@code src} from its position to its limit. */
    PendingWrite begin(long offsetBytes, ByteBuffer src) {
        byte[] data = new byte[src.remaining()];
        src.duplicate().get(data);
        PendingWrite write = new PendingWrite(nextSequence++, offsetBytes, data, lastCompletionOrder);
        notDurable.put(write.sequence, write);
        return write;
    }

    /** Makes a write visible to reads: the device acknowledged it (it may still be volatile). */
    void complete(PendingWrite write) {
        Checks.check(write.completionOrder == 0, "write %d completed twice", write.sequence);
        write.completionOrder = ++lastCompletionOrder;
        visible.write(write, write.completionOrder);
        completedVolatile.put(write.completionOrder, write);
        completedVolatileBytes += write.lengthBytes();
    }

    /** Puts a completed write on stable media; it no longer takes part in crash images. */
    void makeDurable(PendingWrite write) {
        Checks.check(write.completionOrder != 0, "write %d made durable before it completed", write.sequence);
        if (notDurable.remove(write.sequence) == null) {
            return; // already durable
        }
        durable.write(write, write.completionOrder);
        completedVolatile.remove(write.completionOrder);
        completedVolatileBytes -= write.lengthBytes();
    }

    /** Makes durable every write whose completion order is {@code <= completionOrder}. */
    void makeDurableThrough(long completionOrder) {
        while (!completedVolatile.isEmpty() && completedVolatile.firstKey() <= completionOrder) {
            makeDurable(completedVolatile.firstEntry().getValue());
        }
    }

    /**
     * A failed flush: each acknowledged, still volatile write up to {@code completionOrder} is either put on
     * stable media or lost for good (it stays visible to reads until the power goes, like a page the kernel
     * could not write back), as {@code fate} decides.
     *
     * @return writes lost
     */
    int loseSomeVolatile(long completionOrder, Prng fate) {
        int lost = 0;
        while (!completedVolatile.isEmpty() && completedVolatile.firstKey() <= completionOrder) {
            PendingWrite write = completedVolatile.firstEntry().getValue();
            if (fate.chance(0.5)) {
                makeDurable(write);
            } else {
                notDurable.remove(write.sequence);
                completedVolatile.remove(write.completionOrder);
                completedVolatileBytes -= write.lengthBytes();
                lost++;
            }
        }
        return lost;
    }

    /** True if every write completed up to {@code completionOrder} is durable. */
    boolean durableThrough(long completionOrder) {
        return completedVolatile.isEmpty() || completedVolatile.firstKey() > completionOrder;
    }

    /** The completion order of the newest acknowledged write (0 if none): what a new flush covers. */
    long lastCompletionOrder() {
        return lastCompletionOrder;
    }

    /** The oldest acknowledged write that is still volatile, or null. */
    PendingWrite oldestCompletedVolatile() {
        return completedVolatile.isEmpty() ? null : completedVolatile.firstEntry().getValue();
    }

    /** Bytes acknowledged but still volatile (the occupied part of a volatile write cache). */
    long completedVolatileBytes() {
        return completedVolatileBytes;
    }

    /** Writes not yet durable, in flight or acknowledged. */
    int notDurableCount() {
        return notDurable.size();
    }

    /** Reads the visible contents into {@code dst} (position to limit). */
    void read(long offsetBytes, ByteBuffer dst) {
        visible.read(offsetBytes, dst);
    }

    /**
     * A power cut: each write not yet durable independently survives, vanishes, or survives torn at 512 B, as
     * {@code fate} decides (one third each). The survivors land in a random order that keeps only what a real
     * device must keep: a write acknowledged before another was submitted lands before it; writes that were in
     * flight together (overlapping or not) land in either order, and may land behind durable data written
     * while they were in flight. The survivors join the durable contents, the record empties, and from now on
     * readers see the durable contents.
     */
    CrashOutcome crash(Prng fate) {
        int survived = 0;
        int vanished = 0;
        int torn = 0;
        List<Landing> landings = new ArrayList<>();
        for (PendingWrite write : notDurable.values()) {
            int sectors = (int) (write.lengthBytes() / BlockDevice.SECTOR_BYTES);
            int choice = fate.nextInt(3);
            BitSet landed = null;
            if (choice == 0 || (choice == 2 && sectors < 2)) {
                survived++;
            } else if (choice == 1) {
                vanished++;
                continue;
            } else {
                landed = tornSubset(sectors, fate);
                torn++;
            }
            // A point inside the write's life, in completion-order time: after its submit mark, not after its
            // completion. Sorting by such points is an order every real device could have produced.
            long completion = write.completionOrder != 0 ? write.completionOrder : lastCompletionOrder + 1;
            double point = write.submitMark + 0.5 + fate.nextDouble() * (completion - write.submitMark - 0.5);
            landings.add(new Landing(write, landed, point));
        }
        landings.sort(Comparator.comparingDouble(Landing::point));
        long rank = lastCompletionOrder;
        for (Landing landing : landings) {
            durable.landAtCrash(landing.write(), rank, landing.sectors());
        }
        forgetVolatile();
        return new CrashOutcome(survived, vanished, torn);
    }

    /**
     * A power cut whose fates the caller chooses, for crash-point enumeration: the write at index {@code i} of
     * the not-yet-durable writes in issue order (as {@link #notDurableCount()} counts them) survives whole if
     * {@code survivors.get(i)}, else vanishes; none tears. The survivors land in issue order, an order every real
     * device could have produced (a write acknowledged before another was submitted was also issued before it),
     * and, as in {@link #crash(Prng)}, never over a sector whose durable writer was submitted after the survivor
     * was acknowledged. Then the record empties and readers see the durable contents.
     */
    CrashOutcome crash(BitSet survivors) {
        Checks.check(survivors.length() <= notDurable.size(), "survivor index %d beyond the %d writes not yet durable",
                survivors.length() - 1, notDurable.size());
        int survived = 0;
        int index = 0;
        for (PendingWrite write : notDurable.values()) {
            if (survivors.get(index++)) {
                durable.landAtCrash(write, lastCompletionOrder, null);
                survived++;
            }
        }
        int vanished = notDurable.size() - survived;
        forgetVolatile();
        return new CrashOutcome(survived, vanished, 0);
    }

    /** The end of a power cut: nothing is in flight or volatile any more; readers see the durable contents. */
    private void forgetVolatile() {
        notDurable.clear();
        completedVolatile.clear();
        completedVolatileBytes = 0;
        visible = durable.copy();
    }

    /** A write that survives a power cut: which of its sectors land (null: all), and when. */
    private record Landing(PendingWrite write, BitSet sectors, double point) {
    }

    /** A random subset of {@code sectors >= 2} sectors that is neither empty nor all of them. */
    private static BitSet tornSubset(int sectors, Prng fate) {
        BitSet landed = new BitSet(sectors);
        for (int i = 0; i < sectors; i++) {
            if (fate.chance(0.5)) {
                landed.set(i);
            }
        }
        // Force a proper subset so "torn" is always distinguishable from "survived" and "vanished".
        int pick = fate.nextInt(sectors);
        if (landed.cardinality() == sectors) {
            landed.clear(pick);
        } else if (landed.isEmpty()) {
            landed.set(pick);
        }
        return landed;
    }
}
