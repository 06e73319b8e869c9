package io.blockcache.sim;

import io.blockcache.device.BlockDevice;
import java.nio.ByteBuffer;
import java.util.BitSet;
import java.util.List;

/**
 * The prefix oracle: is a device's content — typically the backing device alone, the cache
 * device thrown away — a state the volume could have crashed into at some FLUSH boundary? That is: for some cut
 * n, every sector holds its newest value acknowledged before boundary n was submitted, or a newer value submitted
 * before boundary n+1 was (the epoch after the cut, written in part). A disk with a volatile write cache promises
 * exactly this after a power cut; a file system or database on it recovers from it.
 *
 * <p>Boundaries are the FLUSHes and FUA writes the driver recorded ({@link ReferenceModel#boundary}); cut 0 is the
 * model's starting point (format, or what the last recovery read back). Per sector, each history entry matching
 * the found value allows an interval of cuts: from the first cut whose window contains its submission to the last
 * cut whose newest acknowledged value is not newer than it. The sector allows the union; the device passes if
 * the intersection over all sectors is not empty. Cost: O(sectors × (history + cuts / 64)).
 *
 * <p>Thread rule: the model's owner.
 */
public final class PrefixCheck {
    private PrefixCheck() {
    }

    /**
     * Checks {@code contents}, the first sectors of the volume as a device holds them, against {@code model};
     * returns null if they are the volume at some cut, else what is wrong (the sector at which no cut remained).
     */
    public static String check(ReferenceModel model, ByteBuffer contents) {
        List<long[]> boundaries = model.boundaries();
        int cuts = boundaries.size() + 1;
        long[] acksAt = new long[boundaries.size()];
        long[] sequenceAt = new long[boundaries.size()];
        for (int i = 0; i < boundaries.size(); i++) {
            acksAt[i] = boundaries.get(i)[0];
            sequenceAt[i] = boundaries.get(i)[1];
        }
        BitSet feasible = new BitSet(cuts);
        feasible.set(0, cuts);
        int sectors = contents.remaining() / BlockDevice.SECTOR_BYTES;
        ByteBuffer in = contents.duplicate();
        long lastNarrowingSector = -1;
        for (int sector = 0; sector < sectors && sector < model.sectorCount(); sector++) {
            long found = SectorPattern.decode(in, sector);
            if (found == SectorPattern.TORN) {
                return "sector " + sector + " holds torn or foreign data";
            }
            BitSet allowed = allowedCuts(model.history(sector), found, acksAt, sequenceAt, cuts);
            BitSet before = (BitSet) feasible.clone();
            feasible.and(allowed);
            if (feasible.isEmpty()) {
                return "sector " + sector + " holds " + SectorPattern.describe(found) + ", which fits only cuts "
                        + ranges(allowed) + " of " + (cuts - 1) + " FLUSH/FUA boundaries, but the sectors before it"
                        + " fit only " + ranges(before) + (lastNarrowingSector >= 0 ? " (last narrowed by sector "
                        + lastNarrowingSector + ")" : "");
            }
            if (!feasible.equals(before)) {
                lastNarrowingSector = sector;
            }
        }
        return null;
    }

    private static BitSet allowedCuts(List<ReferenceModel.Entry> history, long found, long[] acksAt,
                                      long[] sequenceAt, int cuts) {
        BitSet allowed = new BitSet(cuts);
        for (int i = 0; i < history.size(); i++) {
            ReferenceModel.Entry entry = history.get(i);
            if (entry.value != found && entry.value != ReferenceModel.WILDCARD) {
                continue;
            }
            // First cut whose window (submissions before the next boundary) holds the entry: cut n's window ends
            // at boundary n (0-based in sequenceAt); the last cut's window never ends.
            int first = 0;
            while (first < sequenceAt.length && sequenceAt[first] <= entry.sequence) {
                first++;
            }
            // Last cut whose newest acknowledged value is not newer: before the first acknowledgement of a newer
            // submission. Cut n >= 1 sees acknowledgements up to acksAt[n - 1].
            long newerAckMin = Long.MAX_VALUE;
            for (int j = 0; j < history.size(); j++) {
                ReferenceModel.Entry other = history.get(j);
                if (other.sequence > entry.sequence && other.acknowledgedOrder > 0) {
                    newerAckMin = Math.min(newerAckMin, other.acknowledgedOrder);
                }
            }
            int last = 0;
            while (last < acksAt.length && acksAt[last] < newerAckMin) {
                last++;
            }
            if (first <= last) {
                allowed.set(first, last + 1);
            }
        }
        return allowed;
    }

    private static String ranges(BitSet cuts) {
        StringBuilder text = new StringBuilder();
        for (int from = cuts.nextSetBit(0); from >= 0; ) {
            int to = cuts.nextClearBit(from) - 1;
            text.append(text.length() == 0 ? "" : ", ").append(from == to ? "" + from : from + "-" + to);
            from = cuts.nextSetBit(to + 1);
        }
        return text.length() == 0 ? "none" : text.toString();
    }
}
