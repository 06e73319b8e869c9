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
    /** A sustained-overload write is 4 KiB to this many times 4 KiB (64 KiB). */
    private static final int SUSTAINED_REQUEST_4K_MAX = 16;

    /** A sequential stream writes this much per request: 64 KiB, Linux's usual readahead/writeback chunk. */
    private static final int STREAM_REQUEST_SECTORS = 128;
    /** A sequential stream is 4 to 16 such requests: up to 1 MiB, past small sequential cutoffs. */
    private static final int STREAM_REQUESTS_MIN = 4;
    private static final int STREAM_REQUESTS_MAX = 16;

    private final Prng prng;
    private final long rangeSectors;
    private final double streamChance;
    private long streamNextSector;
    private int streamRequestsLeft;
    private int sustainedRequestsLeft;

    /** A generator over the first {@code rangeBytes} of the device (a multiple of 4 KiB, at least 256 KiB). */
    public WorkloadGenerator(Prng prng, long rangeBytes) {
        this(prng, rangeBytes, 0);
    }

    /**
     * A generator that also, with {@code streamChance} per request, starts a sequential stream of 64 KiB
     * writes (so that sequential bypass has something to detect).
     */
    public WorkloadGenerator(Prng prng, long rangeBytes, double streamChance) {
        if (rangeBytes % 4096 != 0 || rangeBytes < (long) REQUEST_SECTORS_MAX * BlockDevice.SECTOR_BYTES) {
            throw new IllegalArgumentException("range must be a multiple of 4 KiB and >= 256 KiB: " + rangeBytes);
        }
        if (!(streamChance >= 0 && streamChance <= 1)) {
            throw new IllegalArgumentException("streamChance must be in [0, 1]: " + streamChance);
        }
        this.prng = prng;
        this.rangeSectors = rangeBytes / BlockDevice.SECTOR_BYTES;
        this.streamChance = streamChance;
    }

    /**
     * Makes the next {@code requests} requests a sustained-overload phase (docs/WRITEBACK.md "Sustained writes"):
     * plain 4 KiB-aligned writes of 4-64 KiB at random places over the whole range, no reads, flushes or trims, so
     * that the front end never idles and dirty data only grows.
     */
    public void sustain(int requests) {
        if (requests < 0) {
            throw new IllegalArgumentException("requests must be >= 0: " + requests);
        }
        sustainedRequestsLeft = requests;
    }

    /** Returns the next request. */
    public ModelOp next() {
        if (sustainedRequestsLeft > 0) {
            sustainedRequestsLeft--;
            int lengthSectors = SECTORS_PER_4K * (1 + prng.nextInt(SUSTAINED_REQUEST_4K_MAX));
            long startSector = prng.nextLong((rangeSectors - lengthSectors) / SECTORS_PER_4K + 1) * SECTORS_PER_4K;
            return new ModelOp(ModelOp.Kind.WRITE, startSector * BlockDevice.SECTOR_BYTES,
                    (long) lengthSectors * BlockDevice.SECTOR_BYTES, false);
        }
        if (streamRequestsLeft == 0 && streamChance > 0 && prng.chance(streamChance)) {
            streamRequestsLeft = STREAM_REQUESTS_MIN + prng.nextInt(STREAM_REQUESTS_MAX - STREAM_REQUESTS_MIN + 1);
            streamNextSector = prng.nextLong(rangeSectors / SECTORS_PER_4K) * SECTORS_PER_4K;
        }
        if (streamRequestsLeft > 0) {
            streamRequestsLeft--;
            if (streamNextSector + STREAM_REQUEST_SECTORS > rangeSectors) {
                streamNextSector = 0;
            }
            long start = streamNextSector;
            streamNextSector += STREAM_REQUEST_SECTORS;
            return new ModelOp(ModelOp.Kind.WRITE, start * BlockDevice.SECTOR_BYTES,
                    (long) STREAM_REQUEST_SECTORS * BlockDevice.SECTOR_BYTES, false);
        }
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
