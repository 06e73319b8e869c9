package io.blockcache.interop;

import io.blockcache.device.BlockDevice;
import io.blockcache.sim.ModelOp;
import io.blockcache.sim.ReferenceModel;
import io.blockcache.sim.SectorPattern;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The process fuzz's view of the simulator's {@link ReferenceModel} (the one reference model; its rules are in
 * docs/TESTING.md "What is checked"), shared by the workers of {@link ProcessFuzz}. It adds what real connections
 * need and the simulator does not:
 * <ul>
 *   <li>one lock: the model has one owner, the workers are threads;</li>
 *   <li>no two overlapping mutations in flight at once (two connections give no order between them, so "newest
 *       submission wins" would have no meaning): {@link #submitMutation} refuses an overlapping one;</li>
 *   <li>which sectors were last trimmed (submitted, and no write or write-zeroes acknowledged since), for the
 *       backing-file oracle: a trim's outcome is not pinned down;</li>
 *   <li>what each write id was (round, worker, operation), so that a sector read back names its write.</li>
 * </ul>
 * Thread rule: any thread; every method takes the lock.
 */
final class ProcessFuzzModel {
    private static final int SECTOR_BYTES = BlockDevice.SECTOR_BYTES;

    private final ReferenceModel model;
    private final List<ModelOp> mutationsInFlight = new ArrayList<>();
    private final BitSet trimmedLast = new BitSet();
    private final Map<Long, String> writes = new HashMap<>();

    ProcessFuzzModel(long sizeBytes) {
        this.model = new ReferenceModel(sizeBytes / SECTOR_BYTES);
    }

    /** Sectors modelled. */
    synchronized long sectorCount() {
        return model.sectorCount();
    }

    /**
     * Records a mutation's submission, or returns null (nothing recorded) if it overlaps one in flight. Fills
     * {@code payload} (a WRITE's bytes, {@code op.lengthBytes()} long) with the write's stamped sectors.
     */
    synchronized ReferenceModel.Entry submitMutation(ModelOp op, byte[] payload, String what) {
        for (ModelOp other : mutationsInFlight) {
            if (other.overlaps(op)) {
                return null;
            }
        }
        mutationsInFlight.add(op);
        ReferenceModel.Entry entry = model.submit(op);
        int from = (int) op.startSector();
        if (op.kind() == ModelOp.Kind.TRIM) {
            trimmedLast.set(from, from + op.lengthSectors()); // at submission: a trim cut short by a kill counts
        }
        if (op.kind() == ModelOp.Kind.WRITE) {
            writes.put(entry.writeId(), what + " " + op);
            ByteBuffer out = ByteBuffer.wrap(payload);
            for (long s = op.startSector(); s < op.startSector() + op.lengthSectors(); s++) {
                SectorPattern.fill(entry.writeId(), s, out);
            }
        }
        return entry;
    }

    /** Records the acknowledgement of a mutation (a FUA one is durable from now). */
    synchronized void acknowledge(ReferenceModel.Entry entry, ModelOp op) {
        model.acknowledge(entry, op);
        mutationsInFlight.remove(op);
        if (op.kind() != ModelOp.Kind.TRIM) {
            // Only once acknowledged: a write lost to a kill leaves whatever the trim left. No trim of these sectors
            // can be in flight now (overlapping mutations never are), so none can follow this write unseen.
            trimmedLast.clear((int) op.startSector(), (int) op.startSector() + op.lengthSectors());
        }
    }

    /**
     * Forgets that a mutation is in flight without acknowledging it: its server was killed, so it stays a value
     * that may or may not have landed until the recovery's read-back decides.
     */
    synchronized void abandon(ModelOp op) {
        mutationsInFlight.remove(op);
    }

    /** Records a FLUSH's submission; pass the result to {@link #flushAcknowledged}. */
    synchronized long flushSubmitted() {
        return model.flushSubmitted();
    }

    /** Records a FLUSH's acknowledgement. */
    synchronized void flushAcknowledged(long atSubmit) {
        model.flushAcknowledged(atSubmit);
    }

    /** Records a READ's submission. */
    synchronized long[] readSubmitted(long startSector, int lengthSectors) {
        return model.readSubmitted(startSector, lengthSectors);
    }

    /** Checks a completed READ; null if allowed, else what is wrong, naming the writes involved. */
    synchronized String checkRead(long startSector, long[] lowest, byte[] data) {
        return describe(model.checkRead(startSector, lowest, ByteBuffer.wrap(data)));
    }

    /** Checks a read-back after a kill and restart against the durable values; null if allowed. */
    synchronized String checkRecovered(long startSector, byte[] data) {
        return describe(model.checkRecovered(startSector, ByteBuffer.wrap(data)));
    }

    /** Takes a checked read-back as the new durable state of its sectors. */
    synchronized void adopt(long startSector, byte[] data) {
        model.adopt(startSector, ByteBuffer.wrap(data));
    }

    /** Sectors checked after a restart whose durable value was written data: proof the checks were not vacuous. */
    synchronized long durableWrittenSectorsChecked() {
        return model.durableWrittenSectorsChecked();
    }

    /** True if the newest mutation submitted to {@code sector} was a trim (its contents are not pinned down). */
    synchronized boolean trimmedLast(long sector) {
        return trimmedLast.get((int) sector);
    }

    private String describe(ReferenceModel.Mismatch mismatch) {
        if (mismatch == null) {
            return null;
        }
        String found = writes.get(mismatch.found());
        return mismatch + (found == null ? "" : " (found data is " + found + ")");
    }
}
