package io.blockcache.sim;

import static io.blockcache.loop.Checks.require;

/**
 * The parameters of a simulated SSD, validated once here. Times in nanoseconds, rates in bytes per second.
 *
 * @param sizeBytes capacity; a positive multiple of 4096
 * @param readLatencyNs time one channel is busy with a read (NAND read plus controller)
 * @param writeLatencyNs time one channel is busy taking a write into the controller's buffer
 * @param channelCount independent channels serving requests in parallel
 * @param readBytesPerSecond ceiling on read transfer (host link / controller)
 * @param writeBytesPerSecond ceiling on write transfer
 * @param writeCacheBytes volatile write buffer; beyond it the oldest writes are programmed to NAND
 * @param flushNs time a FLUSH (and the extra of a FUA write) takes to program the buffer
 */
public record SsdConfig(
        long sizeBytes,
        long readLatencyNs,
        long writeLatencyNs,
        int channelCount,
        long readBytesPerSecond,
        long writeBytesPerSecond,
        long writeCacheBytes,
        long flushNs) {

    /** Validates every value. */
    public SsdConfig {
        require(sizeBytes > 0 && sizeBytes % 4096 == 0, "sizeBytes must be a positive multiple of 4096: %d",
                sizeBytes);
        require(readLatencyNs > 0 && writeLatencyNs > 0, "latencies must be > 0: %d, %d", readLatencyNs,
                writeLatencyNs);
        require(channelCount >= 1 && channelCount <= 1024, "channelCount out of range: %d", channelCount);
        require(readBytesPerSecond > 0 && writeBytesPerSecond > 0, "rates must be > 0: %d, %d",
                readBytesPerSecond, writeBytesPerSecond);
        require(writeCacheBytes >= 4096, "writeCacheBytes must be >= 4096: %d", writeCacheBytes);
        require(flushNs >= 0, "flushNs must be >= 0: %d", flushNs);
    }

    /**
     * A 1 TB NVMe drive of the common TLC kind (docs/TESTING.md, "Device models"): read 80 µs, write 20 µs into the
     * buffer, 8 channels, 3 GB/s read and 2 GB/s write ceilings, a 64 MiB volatile buffer (DRAM-cached consumer
     * drives), 1 ms to flush it.
     */
    public static SsdConfig defaults() {
        return new SsdConfig(1_000_000_000_000L, 80_000, 20_000, 8, 3_000_000_000L, 2_000_000_000L, 64L << 20,
                1_000_000);
    }
}
