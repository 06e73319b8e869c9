package io.blockcache.index;

import io.blockcache.loop.Prng;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Throughput of the extent index (not a test): random 4 KiB overwrites into an index that already holds
 * {@code extents} extents, and random 16 KiB lookups. Run with {@code scripts/jmh-index.sh}; results go
 * to docs/BENCHMARKS.md.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class IndexBenchmark {
    /** Sectors per 4 KiB extent, the typical random-write size. */
    private static final int EXTENT_SECTORS = 8;

    @Param({"1000000"})
    public int extents;

    private ExtentIndex index;
    private Prng prng;
    private long spanSectors;

    @Setup
    public void fill() {
        index = new ExtentIndex();
        spanSectors = (long) extents * EXTENT_SECTORS;
        for (long i = 0; i < extents; i++) {
            index.insert(i * EXTENT_SECTORS, EXTENT_SECTORS, (int) (i / 256), (int) (i % 256) * EXTENT_SECTORS, 0,
                    true, (int) i);
        }
        prng = new Prng(42);
    }

    /** Overwrites a random aligned 4 KiB block: one remove of the old extent plus one insert. */
    @Benchmark
    public void insertRandom4KiB() {
        long start = prng.nextLong(extents) * EXTENT_SECTORS;
        index.insert(start, EXTENT_SECTORS, 7, 0, 1, true, 0);
    }

    /** Overwrites a random unaligned 4 KiB range: trims two extents. */
    @Benchmark
    public void insertRandomUnaligned4KiB() {
        long start = prng.nextLong(spanSectors - EXTENT_SECTORS);
        index.insert(start, EXTENT_SECTORS, 7, 0, 1, true, 0);
    }

    /** Looks up a random 16 KiB range (about 3 pieces). */
    @Benchmark
    public void lookupRandom16KiB(Blackhole blackhole) {
        long start = prng.nextLong(spanSectors - 32);
        index.lookup(start, 32, bucket -> bucket == 7 ? 1 : 0, new LookupVisitor() {
            @Override
            public void hole(long holeStart, int holeLength) {
                blackhole.consume(holeStart);
            }

            @Override
            public void extent(long s, int l, long location, int crc, int crcOffset, int crcLength) {
                blackhole.consume(location);
            }
        });
    }
}
