package io.blockcache.writeback;

import io.blockcache.volume.Volume;
import io.blockcache.volume.VolumeIndex;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * Picks the keys of one pass from a buffer and puts them in issue order.
 * <ul>
 *   <li>Modern, LBA order: the lowest keys, ordered by a min-heap on LBA (the 2025 patch's read_dirty_heap).</li>
 *   <li>Modern, FIFO order: the oldest keys, in age order.</li>
 *   <li>Classic: the lowest key and the keys that continue it exactly (pre-2025 bcache: a pass only combines
 *       LBA-contiguous keys).</li>
 * </ul>
 * Like bcache, a pass stops before its key count reaches the limit or once its size has reached the sector
 * limit (so one large key may take it past). Keys the index no longer holds exactly, that overlap a key in
 * flight, that a front-end write in flight may be replacing, or that are no longer of the oldest epoch (epoch
 * ordering), are dropped (a later pass finds them again).
 *
 * <p>Thread rule: the loop thread.
 */
final class PassPicker {
    private static final Comparator<DirtyKey> BY_LBA = Comparator.comparingLong(DirtyKey::startSector);

    private final KeyCheck check = new KeyCheck();

    /** Picks up to {@code keysMax} keys / {@code sectorsMax} sectors from {@code source}, in issue order. */
    List<DirtyKey> pick(DirtyScanner source, WritebackPolicy policy, WritebackOrder order, int keysMax,
                        int sectorsMax, VolumeIndex index, InFlightKeys inFlight, Volume volume,
                        DirtyScanner.RangeFilter eligible, WritebackCounters counters) {
        List<DirtyKey> taken = new ArrayList<>();
        long sectors = 0;
        while (taken.size() < keysMax && sectors < sectorsMax) {
            DirtyKey key;
            if (policy == WritebackPolicy.CLASSIC && !taken.isEmpty()) {
                key = source.pollStartingAt(taken.get(taken.size() - 1).endSector());
            } else if (policy == WritebackPolicy.MODERN && order == WritebackOrder.FIFO) {
                key = source.pollOldest();
            } else {
                key = source.pollLowest();
            }
            if (key == null) {
                break;
            }
            if (inFlight.overlaps(key.startSector(), key.lengthSectors()) || !check.stillDirty(index, key)
                    || volume.frontEndWriteInFlight(key.startSector(), key.lengthSectors())
                    || !eligible.test(key.startSector(), key.lengthSectors())) {
                counters.keysDropped.incrementAndGet();
                continue;
            }
            taken.add(key);
            sectors += key.lengthSectors();
        }
        if (order == WritebackOrder.FIFO && policy == WritebackPolicy.MODERN) {
            return taken;
        }
        PriorityQueue<DirtyKey> heap = new PriorityQueue<>(Math.max(1, taken.size()), BY_LBA);
        heap.addAll(taken);
        List<DirtyKey> ordered = new ArrayList<>(taken.size());
        while (!heap.isEmpty()) {
            ordered.add(heap.poll());
        }
        return ordered;
    }

    /** The order a modern pass uses now: AUTO resolves by the buffered keys' mean size. */
    static WritebackOrder resolve(WritebackOrder order, DirtyScanner source, WritebackSettings settings) {
        if (order != WritebackOrder.AUTO) {
            return order;
        }
        return source.meanKeySectors() >= settings.autoLargeKeySectors() ? WritebackOrder.FIFO : WritebackOrder.LBA;
    }
}
