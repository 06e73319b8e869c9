package io.blockcache.fuzz;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.IoResult;
import io.blockcache.index.ExtentLocation;
import io.blockcache.index.LookupVisitor;
import io.blockcache.sim.LoopRunner;
import io.blockcache.sim.SectorPattern;
import io.blockcache.volume.Volume;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.BitSet;

/**
 * Oracles (b) and (c) of the fuzz (docs/TESTING.md): every sector of a volume that the cache does not hold dirty reads
 * the same through the volume as straight from the backing device. That is (b), a clean copy equals the backing bytes,
 * and (c), evicting every clean bucket and re-reading changes nothing, in one check: a read after eviction is
 * exactly the backing read made here. Run it when nothing is in flight (after a recovery, after a drain).
 * Thread rule: the scenario's thread.
 */
public final class CleanCopyOracle {
    /** 256 KiB per read, as the range verifier. */
    private static final int CHUNK_BYTES = 256 << 10;

    private CleanCopyOracle() {
    }

    /**
     * Checks the first {@code rangeBytes} of {@code volume}; returns null when they agree, else the first
     * disagreeing sector with both values.
     */
    public static String check(Volume volume, long rangeBytes, LoopRunner runner) {
        for (long offsetBytes = 0; offsetBytes < rangeBytes; offsetBytes += CHUNK_BYTES) {
            int lengthBytes = (int) Math.min(CHUNK_BYTES, rangeBytes - offsetBytes);
            long startSector = offsetBytes / BlockDevice.SECTOR_BYTES;
            int sectors = lengthBytes / BlockDevice.SECTOR_BYTES;
            BitSet dirty = dirtySectors(volume, startSector, sectors);
            ByteBuffer cached = read(volume, offsetBytes, lengthBytes, runner, "volume");
            ByteBuffer backing = read(volume.backingDevice(), volume.backingOffsetBytes(startSector), lengthBytes,
                    runner, "backing device");
            for (int i = 0; i < sectors; i++) {
                if (dirty.get(i)) {
                    continue;
                }
                int from = i * BlockDevice.SECTOR_BYTES;
                int to = from + BlockDevice.SECTOR_BYTES;
                if (!Arrays.equals(cached.array(), from, to, backing.array(), from, to)) {
                    long sector = startSector + i;
                    return "sector " + sector + " is not dirty, yet the volume reads "
                            + SectorPattern.describe(SectorPattern.decode(cached.duplicate().position(from), sector))
                            + " and the backing device holds "
                            + SectorPattern.describe(SectorPattern.decode(backing.duplicate().position(from), sector));
                }
            }
        }
        return null;
    }

    private static BitSet dirtySectors(Volume volume, long startSector, int sectors) {
        BitSet dirty = new BitSet(sectors);
        volume.index().lookup(startSector, sectors, new LookupVisitor() {
            @Override
            public void hole(long start, int length) {
            }

            @Override
            public void extent(long start, int length, long location, int crc32c, int crcOffsetInBucketSectors,
                               int crcLengthSectors) {
                if (ExtentLocation.dirty(location)) {
                    dirty.set((int) (start - startSector), (int) (start - startSector) + length);
                }
            }
        });
        return dirty;
    }

    private static ByteBuffer read(BlockDevice device, long offsetBytes, int lengthBytes, LoopRunner runner,
                                   String what) {
        ByteBuffer data = ByteBuffer.allocate(lengthBytes);
        IoResult[] result = {null};
        device.read(offsetBytes, data.duplicate(), r -> result[0] = r);
        runner.runUntil(() -> result[0] != null, "clean-copy check, read of the " + what);
        if (!result[0].ok()) {
            throw new IllegalStateException("clean-copy check: read of the " + what + " at " + offsetBytes
                    + " failed: " + result[0]);
        }
        return data;
    }
}
