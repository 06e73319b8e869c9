package io.blockcache.cli;

import io.blockcache.cache.BlockChecksums;
import io.blockcache.backing.S3Device;
import io.blockcache.backing.S3Volume;
import io.blockcache.volume.Volume;
import io.blockcache.writeback.RunBuffers;
import io.blockcache.writeback.Writeback;
import io.blockcache.device.BlockDevice;
import io.blockcache.device.FileDeviceOptions;
import io.blockcache.nbd.NbdLimits;
import java.util.List;
import java.util.Map;

/**
 * The JVM flags {@code bin/blockcache serve} runs with, from the size of the cache (docs/OPERATIONS.md,
 * "Memory"). The heap holds the extent index, which grows with the extents the cache can hold, and a fixed
 * base; direct memory holds I/O buffers, bounded by the NBD server's buffer budget, the file devices' bounce
 * buffers, and each volume's writeback run buffers and read-miss fill copies.
 * Both limits are worst cases, so no load ends in an OutOfMemoryError; the JVM commits memory as it is used, so
 * resident memory follows the load, not the limits (docs/BENCHMARKS.md, "Process memory").
 *
 * @param heapBytesMax {@code -Xmx}
 * @param directBytesMax {@code -XX:MaxDirectMemorySize}
 */
record JvmSizing(long heapBytesMax, long directBytesMax) {
    /**
     * Heap besides the index: bucket table, journal and checkpoint buffers, writeback and GC state, NBD and admin
     * objects, and G1's room to copy young objects. 96 MiB: a 2 GiB cache serving 4 KiB random writes peaked at
     * about 40 MiB of heap in use (docs/BENCHMARKS.md, "Process memory"), so more than twice that.
     */
    static final long HEAP_BASE_BYTES = 96L << 20;
    /**
     * Index bytes per extent, the budget of docs/BENCHMARKS.md ("Memory per extent": measured 32-42, worst case
     * by construction 58 with every leaf half full).
     */
    static final int INDEX_BYTES_PER_EXTENT_MAX = 64;
    /** The smallest extent the cache holds: one sector. Every live extent owns at least one cache sector. */
    static final int EXTENT_BYTES_MIN = BlockDevice.SECTOR_BYTES;
    /** Heap above the largest index, in percent, so that G1 has free regions to evacuate into. */
    static final int GC_HEADROOM_PERCENT = 25;
    /**
     * Direct memory besides connections and devices: extent-reader pools, zero buffers, moving GC's round and span
     * buffers (3.3 MiB at most), JDK socket buffers.
     */
    static final long DIRECT_SLACK_BYTES = 64L << 20;
    /** The smallest initial heap: the JVM grows it with use, so idle memory stays small. */
    static final long HEAP_INITIAL_BYTES = 32L << 20;

    /**
     * The limits for a cache device of {@code cacheBytes} with {@code backingDevices} backing devices, served with
     * {@code nbd}'s limits. The NBD budget counts at least its default: without {@code --nbd-buffer-max} serve
     * shrinks the default to fit the JVM it runs in, and the JVM that asks here is not that one.
     */
    static JvmSizing forCache(long cacheBytes, int backingDevices, NbdLimits nbd) {
        return forCache(cacheBytes, backingDevices, 0, nbd);
    }

    /**
     * Heap of writeback's chunk buffers on an object store: its byte bound ({@code Writeback.CHUNK_BUFFER_BYTES_MAX},
     * 128 MiB, whatever {@code writeback.NAME.chunks_in_flight_max} says) plus the one chunk that may start past it
     * (4 MiB): 132 MiB.
     */
    static final long WRITEBACK_CHUNK_HEAP_BYTES = Writeback.CHUNK_BUFFER_BYTES_MAX + S3Volume.CHUNK_BYTES_DEFAULT;

    /**
     * Heap per {@code s3://} backing ({@code backing.S3Device}): its staged chunks, a copy of each for its PUT, and
     * a buffer of each for the GET of its old object, at most one of each per staged chunk (3 x 16 x 4 MiB =
     * 192 MiB), plus writeback's chunk buffers for it ({@link #WRITEBACK_CHUNK_HEAP_BYTES}): 324 MiB.
     */
    static final long S3_HEAP_BYTES_PER_BACKING = 3L * S3Device.STAGING_CHUNKS_MAX * S3Volume.CHUNK_BYTES_DEFAULT
            + WRITEBACK_CHUNK_HEAP_BYTES;

    /** As {@link #forCache(long, int, NbdLimits)}, {@code s3Backings} of the backings being S3 volumes. */
    static JvmSizing forCache(long cacheBytes, int backingDevices, int s3Backings, NbdLimits nbd) {
        return forCache(cacheBytes, backingDevices, s3Backings, 0, nbd);
    }

    /**
     * As {@link #forCache(long, int, int, NbdLimits)}, {@code journaledVolumes} of the volumes configured with
     * {@code ordering=journaled}: each may hold {@code Writeback.BACKING_LOG_HEAP_BYTES_MAX} (32 MiB) of log chunks
     * while a group is logged, all at once after a restart with every one dirty. The first fits the base's slack (so a
     * volume switched to journaled at run time is covered too); each further one is added.
     */
    static JvmSizing forCache(long cacheBytes, int backingDevices, int s3Backings, int journaledVolumes,
                              NbdLimits nbd) {
        if (cacheBytes <= 0 || backingDevices <= 0) {
            throw new IllegalArgumentException("cache size and backing devices must be positive: " + cacheBytes
                    + " bytes, " + backingDevices + " devices");
        }
        long extentsMax = cacheBytes / EXTENT_BYTES_MIN;
        long indexBytesMax = Math.multiplyExact(extentsMax, INDEX_BYTES_PER_EXTENT_MAX);
        long heap = HEAP_BASE_BYTES + indexBytesMax + indexBytesMax / 100 * GC_HEADROOM_PERCENT
                + BlockChecksums.heapBytesFor(cacheBytes) + s3Backings * S3_HEAP_BYTES_PER_BACKING
                + Math.max(0, journaledVolumes - 1) * Writeback.BACKING_LOG_HEAP_BYTES_MAX;
        long devices = (1L + backingDevices) * FileDeviceOptions.DEFAULTS.directBytesMax();
        long nbdBytes = Math.max(nbd.bufferBytesMax(), NbdLimits.DEFAULTS.bufferBytesMax())
                + NbdLimits.directBytesBesideBudget(nbd.connectionsMax());
        long writeback = backingDevices * (RunBuffers.IN_USE_BYTES_MAX + RunBuffers.RETAINED_BYTES_MAX);
        long fills = backingDevices * Volume.FILL_DIRECT_BYTES_MAX;
        long direct = nbdBytes + devices + writeback + fills + DIRECT_SLACK_BYTES;
        return new JvmSizing(roundUpMiB(heap), roundUpMiB(direct));
    }

    /** The volumes that {@code knobs} (a configuration's {@code knob.} lines) set to {@code ordering=journaled}. */
    static int journaledVolumes(Map<String, String> knobs) {
        int count = 0;
        for (Map.Entry<String, String> knob : knobs.entrySet()) {
            if (knob.getKey().startsWith("writeback.") && knob.getKey().endsWith(".ordering")
                    && knob.getValue().strip().equalsIgnoreCase("journaled")) {
                count++;
            }
        }
        return count;
    }

    /**
     * A warning when the heap limit passes three quarters of {@code ramBytes}, else null. The limit assumes every
     * extent is one sector; with 4 KiB writes the index needs an eighth of it, so such a cache works until its
     * small writes outgrow memory, and the operator should know that before it happens.
     */
    String ramWarning(long ramBytes) {
        if (ramBytes <= 0 || heapBytesMax <= ramBytes / 4 * 3) {
            return null;
        }
        return "the heap limit " + (heapBytesMax >>> 20) + " MiB (room to index one extent per 512-byte sector of"
                + " the cache) is more than 3/4 of this machine's " + (ramBytes >>> 20) + " MiB of RAM; 4 KiB writes"
                + " need about 1/8 of it, 512-byte writes all of it (docs/OPERATIONS.md, \"Memory\")";
    }

    /** This machine's physical memory in bytes, or 0 if the JVM cannot tell. */
    static long physicalRamBytes() {
        if (java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getTotalMemorySize();
        }
        return 0;
    }

    private static long roundUpMiB(long bytes) {
        return (bytes + (1L << 20) - 1) >>> 20 << 20;
    }

    /** G1 region size: objects of half a region or more are "humongous" and bypass the young generation. */
    static final int G1_REGION_MIB = 4;
    /**
     * G1's target of mutator to collector time (its default is 12). Lower lets young collections come more often
     * instead of growing the heap: the live set of a serving cache is small next to the garbage of its requests.
     */
    static final int G1_GC_TIME_RATIO = 4;
    /** The largest temporary direct buffer the JDK keeps per thread for I/O on heap buffers (default: any size). */
    static final int JDK_CACHED_BUFFER_BYTES_MAX = 256 << 10;

    /**
     * The flags: G1 (short pauses with a large old generation holding the index; in the measurement it kept
     * resident memory lowest of G1, ZGC and Serial), a small initial heap, the two limits, and exit on an
     * OutOfMemoryError all the same (a cache that cannot allocate must stop; the next start recovers from the
     * journal). Three more keep what is resident near what is used (docs/BENCHMARKS.md, "Process memory",
     * 2026-12-02: a bench-like sequence ended with 250 MiB of heap committed for 27 MiB in use): 4 MiB regions, so
     * writeback's run buffers of up to 1 MiB are not humongous (with 1 MiB regions they started 114 concurrent
     * cycles and held up to 95 regions); a GC time ratio of {@value #G1_GC_TIME_RATIO}; and a cap on the JDK's
     * per-thread cache of temporary direct buffers, which kept one buffer of the largest transfer per I/O thread.
     */
    List<String> options() {
        return List.of("-XX:+UseG1GC", "-Xms" + (HEAP_INITIAL_BYTES >>> 20) + "m", "-Xmx" + (heapBytesMax >>> 20) + "m",
                "-XX:G1HeapRegionSize=" + G1_REGION_MIB + "m", "-XX:GCTimeRatio=" + G1_GC_TIME_RATIO,
                "-Djdk.nio.maxCachedBufferSize=" + JDK_CACHED_BUFFER_BYTES_MAX,
                "-XX:MaxDirectMemorySize=" + (directBytesMax >>> 20) + "m", "-XX:+ExitOnOutOfMemoryError");
    }
}
