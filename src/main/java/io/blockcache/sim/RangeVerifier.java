package io.blockcache.sim;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.IoResult;
import java.nio.ByteBuffer;

/**
 * Reads a target's whole workload range back, one chunk at a time, and checks every sector: after a crash
 * against the durable floors (then adopting what was read as the new durable state), otherwise as a read.
 * Thread rule: the simulation driver's thread.
 */
public final class RangeVerifier {
    /** 256 KiB per read: within every device's request limit, few requests for a few MiB. */
    static final int CHUNK_BYTES = 256 << 10;

    private final ReferenceModel model;
    private final WorkloadDriver driver;
    private final LoopRunner runner;

    public RangeVerifier(ReferenceModel model, WorkloadDriver driver, LoopRunner runner) {
        this.model = model;
        this.driver = driver;
        this.runner = runner;
    }

    /** Verifies the whole range of {@code device}; {@code afterCrash} selects the recovery rules. */
    public void verify(BlockDevice device, boolean afterCrash) {
        long rangeBytes = model.sectorCount() * BlockDevice.SECTOR_BYTES;
        for (long offsetBytes = 0; offsetBytes < rangeBytes; offsetBytes += CHUNK_BYTES) {
            int lengthBytes = (int) Math.min(CHUNK_BYTES, rangeBytes - offsetBytes);
            long startSector = offsetBytes / BlockDevice.SECTOR_BYTES;
            long[] lowest = afterCrash ? null
                    : model.readSubmitted(startSector, lengthBytes / BlockDevice.SECTOR_BYTES);
            ByteBuffer data = ByteBuffer.allocate(lengthBytes);
            IoResult[] result = {null};
            device.read(offsetBytes, data.duplicate(), r -> result[0] = r);
            String where = "read-back of bytes [" + offsetBytes + ", +" + lengthBytes + ")";
            runner.runUntil(() -> result[0] != null, where);
            if (!result[0].ok()) {
                throw driver.violation(where, "read failed: " + result[0]);
            }
            ReferenceModel.Mismatch mismatch = afterCrash ? model.checkRecovered(startSector, data)
                    : model.checkRead(startSector, lowest, data);
            if (mismatch != null) {
                throw driver.violation(where, (afterCrash ? "after recovery, " : "") + mismatch);
            }
            if (afterCrash) {
                model.adopt(startSector, data);
            }
        }
    }
}
