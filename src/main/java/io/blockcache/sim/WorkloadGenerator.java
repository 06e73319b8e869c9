package io.blockcache.sim;

import io.blockcache.device.BlockDevice;
import io.blockcache.loop.Prng;

/**
 * Seeded requests over a small range, so that overlaps are frequent: writes from 512 B to 256 KiB (half of
 * them 4 KiB-aligned, the rest on any sector), FUA writes, reads, flushes, trims and write-zeroes.
 *
 * <p>The mix (percent): write 38, FUA write 8, read 30, flush 10, write-zeroes 7, trim 7. Thread rule: one
 * owner.
 */
public final class WorkloadGenerator {
    /** 256 KiB: the largest request (the task's bound; larger ones add nothing to overlap coverage). */
    public static final int REQUEST_SECTORS_MAX = 512;
    private static final int SECTORS_PER_4K = 8;

    private final Prng prng;
    private final long rangeSectors;

    /** A generator over the first {@code rangeBytes} of the device (a multiple of 4 KiB, at least 256 KiB). */
    public WorkloadGenerator(Prng prng, long rangeBytes) {
        if (rangeBytes % 4096 != 0 || rangeBytes < (long) REQUEST_SECTORS_MAX * BlockDevice.SECTOR_BYTES) {
            throw new IllegalArgumentException("range must be a multiple of 4 KiB and >= 256 KiB: " + rangeBytes);
        }
        this.prng = prng;
        this.rangeSectors = rangeBytes / BlockDevice.SECTOR_BYTES;
    }

    /** Returns the next request. */
    public ModelOp next() {
        int roll = prng.nextInt(100);
        if (roll < 10) {
            return new ModelOp(ModelOp.Kind.FLUSH, 0, 0, false);
        }
        ModelOp.Kind kind = roll < 56 ? ModelOp.Kind.WRITE : roll < 86 ? ModelOp.Kind.READ
                : roll < 93 ? ModelOp.Kind.WRITE_ZEROES : ModelOp.Kind.TRIM;
        boolean fua = (kind == ModelOp.Kind.WRITE && roll >= 48) || (kind == ModelOp.Kind.WRITE_ZEROES && roll >= 91);
        boolean aligned = prng.chance(0.5);
        int lengthSectors = lengthSectors(aligned);
        long startSector = prng.nextLong(rangeSectors - lengthSectors + 1);
        if (aligned) {
            startSector -= startSector % SECTORS_PER_4K;
        }
        return new ModelOp(kind, startSector * BlockDevice.SECTOR_BYTES,
                (long) lengthSectors * BlockDevice.SECTOR_BYTES, fua);
    }

    /** Mostly small requests (where overlap bugs live), sometimes large ones up to 256 KiB. */
    private int lengthSectors(boolean aligned) {
        int sectors = prng.chance(0.8) ? 1 + prng.nextInt(64) : 1 + prng.nextInt(REQUEST_SECTORS_MAX);
        if (aligned) {
            sectors = Math.max(SECTORS_PER_4K, sectors - sectors % SECTORS_PER_4K);
        }
        return sectors;
    }
}
