package io.blockcache.bench;

import io.blockcache.device.BlockDevice;
import io.blockcache.loop.Checks;
import io.blockcache.loop.Prng;
import io.blockcache.loop.SimLoop;
import java.nio.ByteBuffer;
import org.HdrHistogram.Histogram;

/**
 * A closed-loop front-end reader (fio's randread with an iodepth): keeps {@code depth} reads of {@code readBytes}
 * at random aligned offsets outstanding until stopped, and records each read's latency in virtual time.
 */
final class RandomReader {
    private final SimLoop loop;
    private final BlockDevice device;
    private final Prng prng;
    private final int readBytes;
    private final long slots;
    private final Histogram latencyNs = new Histogram(3_600_000_000_000L, 3);
    private boolean stopped;
    private long completed;

    RandomReader(SimLoop loop, BlockDevice device, Prng prng, int readBytes) {
        this.loop = loop;
        this.device = device;
        this.prng = prng;
        this.readBytes = readBytes;
        this.slots = device.sizeBytes() / readBytes;
    }

    /** Starts {@code depth} reads; each completion issues the next until {@link #stop}. */
    void start(int depth) {
        for (int i = 0; i < depth; i++) {
            issue();
        }
    }

    private void issue() {
        long startNs = loop.nowNs();
        device.read(prng.nextLong(slots) * readBytes, ByteBuffer.allocate(readBytes), result -> {
            Checks.check(result.ok(), "front-end read failed: %s", result);
            if (stopped) {
                return;
            }
            latencyNs.recordValue(loop.nowNs() - startNs);
            completed++;
            issue();
        });
    }

    /** Stops recording; reads in flight finish unrecorded. */
    void stop() {
        stopped = true;
    }

    long completed() {
        return completed;
    }

    /** Latency at {@code percentile} (0..100), microseconds. */
    double latencyUs(double percentile) {
        return latencyNs.getValueAtPercentile(percentile) / 1000.0;
    }
}
