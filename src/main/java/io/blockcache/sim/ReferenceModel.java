package io.blockcache.sim;

import io.blockcache.device.BlockDevice;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The plain reference a model or crash test checks a device against: per sector, every value submitted to it (in
 * submission order), which of them were acknowledged, and the newest one known to be durable (docs/ARCHITECTURE.md §5).
 *
 * <p>Rules it checks (the engine's contract; a raw device meets them when overlapping mutations are never in
 * flight together):
 * <ul>
 *   <li><b>Newest submission wins.</b> Of the acknowledged values of a sector, the one submitted last is its
 *       value; an older write still in flight never shows through it.</li>
 *   <li><b>Reads</b> return, per sector, the newest acknowledged value at the read's submission or any value
 *       submitted after it (in flight then, or submitted while the read was).</li>
 *   <li><b>Durability.</b> An acknowledged FUA write is durable; an acknowledged flush makes durable, per sector,
 *       the newest value acknowledged before the flush was submitted. After a crash a sector holds its newest
 *       durable value or any value submitted after it, acknowledged or not.</li>
 *   <li><b>Trim</b> is a wildcard until the next write: any intact value for the sector, or zero.</li>
 *   <li>A torn or foreign sector ({@link SectorPattern#TORN}) is always a failure.</li>
 * </ul>
 * Histories are kept whole between crashes (a run is a few hundred requests); recovery replaces them with what
 * was read back ({@link #adopt}). Thread rule: one owner.
 */
public final class ReferenceModel {
    /** The value of a trim: any intact value or zero. */
    static final long WILDCARD = -2;

    private final long sectorCount;
    private final List<List<Entry>> histories;
    private final Entry[] floors;
    private long nextSequence = 1;
    private long acknowledgements;
    /** Per FLUSH or FUA write since the last adopt: {acknowledgements, next sequence} at its submission. */
    private final List<long[]> boundaries = new ArrayList<>();
    /** The first {@code boundariesFlushed} boundaries are behind a FLUSH that completed. */
    private int boundariesFlushed;
    private long durableWrittenSectorsChecked;

    /** A model of the first {@code sectorCount} sectors, all zero and durable. */
    public ReferenceModel(long sectorCount) {
        this.sectorCount = sectorCount;
        this.histories = new ArrayList<>((int) sectorCount);
        this.floors = new Entry[(int) sectorCount];
        Entry zero = new Entry(0, SectorPattern.ZERO);
        zero.acknowledgedOrder = 0;
        for (int s = 0; s < sectorCount; s++) {
            List<Entry> history = new ArrayList<>(4);
            history.add(zero);
            histories.add(history);
            floors[s] = zero;
        }
    }

    /**
     * A copy of this model as it stands (histories, acknowledgements, boundaries): for an oracle that must still
     * judge a device by the history before a recovery after {@link #adopt} has replaced it (the fuzz's prefix
     * oracle, while dirty data of an earlier incarnation is being written back). Entries are shared: after a
     * crash nothing acknowledges them any more.
     */
    public ReferenceModel copy() {
        return new ReferenceModel(this, false);
    }

    /**
     * A copy as a power cut left the history: boundaries after the last FLUSH that completed are dropped. A FLUSH
     * that never completed promised nothing: a disk may keep writes submitted after it and lose ones acknowledged
     * before it, and so may the cache (a write around the cache lost from the backing device's volatile cache, a
     * cached one kept by the journal), so after the crash the epochs it separated are one.
     */
    public ReferenceModel copyAfterCrash() {
        return new ReferenceModel(this, true);
    }

    private ReferenceModel(ReferenceModel from, boolean afterCrash) {
        this.sectorCount = from.sectorCount;
        this.histories = new ArrayList<>(from.histories.size());
        for (List<Entry> history : from.histories) {
            histories.add(new ArrayList<>(history));
        }
        this.floors = from.floors.clone();
        this.nextSequence = from.nextSequence;
        this.acknowledgements = from.acknowledgements;
        int kept = afterCrash ? from.boundariesFlushed : from.boundaries.size();
        for (long[] boundary : from.boundaries.subList(0, kept)) {
            boundaries.add(boundary.clone());
        }
        this.boundariesFlushed = Math.min(kept, from.boundariesFlushed);
    }

    /** Number of sectors modelled. */
    public long sectorCount() {
        return sectorCount;
    }

    /**
     * Records a mutation at submission.
     *
     * @return the handle to acknowledge; for a WRITE its {@link Entry#writeId()} is the pattern's write id
     */
    public Entry submit(ModelOp op) {
        long sequence = nextSequence++;
        long value = switch (op.kind()) {
            case WRITE -> sequence;
            case WRITE_ZEROES -> SectorPattern.ZERO;
            case TRIM -> WILDCARD;
            default -> throw new IllegalArgumentException("not a mutation: " + op);
        };
        Entry entry = new Entry(sequence, value);
        for (long s = op.startSector(); s < op.startSector() + op.lengthSectors(); s++) {
            histories.get((int) s).add(entry);
        }
        return entry;
    }

    /** Records the acknowledgement of a mutation; a FUA one is durable from now on. */
    public void acknowledge(Entry entry, ModelOp op) {
        entry.acknowledgedOrder = ++acknowledgements;
        if (op.fua()) {
            for (long s = op.startSector(); s < op.startSector() + op.lengthSectors(); s++) {
                raiseFloor((int) s, entry);
            }
        }
    }

    /**
     * Records an epoch boundary now: a FLUSH's submission, or a FUA write's before {@link #submit} (the engine's
     * epoch ordering closes an epoch at both; {@link PrefixCheck}).
     */
    public void boundary() {
        boundaries.add(new long[] {acknowledgements, nextSequence});
    }

    /** The boundaries since the last adopt, oldest first: {acknowledgements, next sequence} at each. */
    List<long[]> boundaries() {
        return boundaries;
    }

    /** A sector's history: every value submitted since the last adopt, the baseline first. */
    List<Entry> history(int sector) {
        return histories.get(sector);
    }

    /** Records a flush's submission; pass the result to {@link #flushAcknowledged}. */
    public long flushSubmitted() {
        return acknowledgements;
    }

    /** Makes durable, per sector, the newest value acknowledged before the flush was submitted. */
    public void flushAcknowledged(long acknowledgementsAtSubmit) {
        // Every boundary submitted with no more acknowledgements than this flush's is covered by it.
        while (boundariesFlushed < boundaries.size()
                && boundaries.get(boundariesFlushed)[0] <= acknowledgementsAtSubmit) {
            boundariesFlushed++;
        }
        for (int s = 0; s < sectorCount; s++) {
            Entry newest = newestAcknowledged(histories.get(s), acknowledgementsAtSubmit);
            raiseFloor(s, newest);
        }
    }

    /** Records a read's submission: per sector, the oldest submission the read may still see. */
    public long[] readSubmitted(long startSector, int lengthSectors) {
        long[] lowest = new long[lengthSectors];
        for (int i = 0; i < lengthSectors; i++) {
            lowest[i] = newestAcknowledged(histories.get((int) (startSector + i)), Long.MAX_VALUE).sequence;
        }
        return lowest;
    }

    /** Checks a completed read; returns null if it is allowed, else what was wrong. */
    public Mismatch checkRead(long startSector, long[] lowest, ByteBuffer data) {
        ByteBuffer in = data.duplicate();
        for (int i = 0; i < lowest.length; i++) {
            long sector = startSector + i;
            long found = SectorPattern.decode(in, sector);
            if (!allowed(histories.get((int) sector), lowest[i], found)) {
                return new Mismatch(sector, describe(histories.get((int) sector), lowest[i]), found);
            }
        }
        return null;
    }

    /**
     * Checks data read back after a crash and recovery against the durable floors; returns null if allowed.
     * Call before {@link #adopt}.
     */
    public Mismatch checkRecovered(long startSector, ByteBuffer data) {
        return checkAgainstFloors(startSector, data, true);
    }

    /**
     * Checks data against the durable floors as {@link #checkRecovered} does, without counting it as a recovery
     * check: for an oracle that inspects a device's crash image directly (the fuzz's damage-map oracle).
     */
    public Mismatch checkDurable(long startSector, ByteBuffer data) {
        return checkAgainstFloors(startSector, data, false);
    }

    private Mismatch checkAgainstFloors(long startSector, ByteBuffer data, boolean counted) {
        ByteBuffer in = data.duplicate();
        int sectors = data.remaining() / BlockDevice.SECTOR_BYTES;
        for (int i = 0; i < sectors; i++) {
            int sector = (int) (startSector + i);
            long found = SectorPattern.decode(in, sector);
            if (counted && floors[sector].value > 0) {
                durableWrittenSectorsChecked++;
            }
            if (!allowed(histories.get(sector), floors[sector].sequence, found)) {
                return new Mismatch(sector, describe(histories.get(sector), floors[sector].sequence), found);
            }
        }
        return null;
    }

    /**
     * Sectors checked after a recovery whose durable value was written data (not zero): how much the crash
     * checks really tested, so a test can prove it was not vacuous.
     */
    public long durableWrittenSectorsChecked() {
        return durableWrittenSectorsChecked;
    }

    /** Takes what was read back after recovery as the new durable state of those sectors. */
    public void adopt(long startSector, ByteBuffer data) {
        boundaries.clear(); // the adopted contents are the new starting point of every sector
        boundariesFlushed = 0;
        ByteBuffer in = data.duplicate();
        int sectors = data.remaining() / BlockDevice.SECTOR_BYTES;
        for (int i = 0; i < sectors; i++) {
            int sector = (int) (startSector + i);
            Entry recovered = new Entry(nextSequence++, SectorPattern.decode(in, sector));
            recovered.acknowledgedOrder = ++acknowledgements;
            List<Entry> history = histories.get(sector);
            history.clear();
            history.add(recovered);
            floors[sector] = recovered;
        }
    }

    private void raiseFloor(int sector, Entry entry) {
        if (entry.sequence > floors[sector].sequence) {
            floors[sector] = entry;
        }
    }

    /** The newest-submitted entry acknowledged at or before {@code acknowledgementOrderMax}. */
    private static Entry newestAcknowledged(List<Entry> history, long acknowledgementOrderMax) {
        for (int i = history.size() - 1; i > 0; i--) {
            Entry entry = history.get(i);
            if (entry.acknowledgedOrder > 0 && entry.acknowledgedOrder <= acknowledgementOrderMax) {
                return entry;
            }
        }
        return history.get(0); // the baseline: zero at start, or what recovery read back
    }

    private static boolean allowed(List<Entry> history, long lowestSequence, long found) {
        if (found == SectorPattern.TORN) {
            return false;
        }
        for (Entry entry : history) {
            if (entry.sequence >= lowestSequence && (entry.value == found || entry.value == WILDCARD)) {
                return true;
            }
        }
        return false;
    }

    private static String describe(List<Entry> history, long lowestSequence) {
        StringBuilder text = new StringBuilder("{");
        for (Entry entry : history) {
            if (entry.sequence >= lowestSequence) {
                text.append(text.length() > 1 ? ", " : "")
                        .append(entry.value == WILDCARD ? "trim(any)" : SectorPattern.describe(entry.value))
                        .append(entry.acknowledgedOrder > 0 ? "" : " (in flight)");
            }
        }
        return text.append('}').toString();
    }

    /** One submitted value; shared by every sector it covers. */
    public static final class Entry {
        final long sequence;
        final long value;
        long acknowledgedOrder = 0;

        Entry(long sequence, long value) {
            this.sequence = sequence;
            this.value = value;
        }

        /** The write id a WRITE fills its sectors with (its submission sequence). */
        public long writeId() {
            return sequence;
        }
    }

    /** A sector whose value the contract does not allow. */
    public record Mismatch(long sector, String expected, long found) {
        @Override
        public String toString() {
            return "sector " + sector + ": expected one of " + expected + ", found " + SectorPattern.describe(found);
        }
    }
}
