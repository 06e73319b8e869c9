package io.blockcache.sim;

import static io.blockcache.loop.Checks.require;

/**
 * The parameters of a simulated hard disk, validated once here. Times in nanoseconds, rates in bytes per
 * second (decimal MB, as drive data sheets quote them), sizes in bytes.
 *
 * @param sizeBytes capacity; a positive multiple of 4096
 * @param rotationsPerMinute spindle speed
 * @param trackToTrackSeekNs seek over one track; also the track switch a sequential stream pays
 * @param averageSeekNs seek over a third of the stroke (the mean distance between two random tracks)
 * @param fullStrokeSeekNs seek from the outermost to the innermost track
 * @param outerZoneBytesPerSecond sustained media rate of the outermost zone
 * @param innerZoneBytesPerSecond sustained media rate of the innermost zone
 * @param zoneCount number of zones of equal radial width (rate falls linearly from outer to inner)
 * @param commandQueueDepth NCQ slots; requests beyond them wait in a FIFO host queue
 * @param writeCacheEnabled whether non-FUA writes complete once in the volatile write cache
 * @param writeCacheBytes capacity of the volatile write cache
 * @param interfaceBytesPerSecond host link rate charged for a write into the cache
 */
public record HddConfig(
        long sizeBytes,
        int rotationsPerMinute,
        long trackToTrackSeekNs,
        long averageSeekNs,
        long fullStrokeSeekNs,
        long outerZoneBytesPerSecond,
        long innerZoneBytesPerSecond,
        int zoneCount,
        int commandQueueDepth,
        boolean writeCacheEnabled,
        long writeCacheBytes,
        long interfaceBytesPerSecond) {

    /** Validates every value and every relation between values. */
    public HddConfig {
        require(sizeBytes > 0 && sizeBytes % 4096 == 0, "sizeBytes must be a positive multiple of 4096: %d",
                sizeBytes);
        require(rotationsPerMinute >= 1000 && rotationsPerMinute <= 20_000, "rotationsPerMinute out of range: %d",
                rotationsPerMinute);
        require(trackToTrackSeekNs > 0 && trackToTrackSeekNs < averageSeekNs && averageSeekNs < fullStrokeSeekNs,
                "need 0 < trackToTrackSeekNs < averageSeekNs < fullStrokeSeekNs: %d, %d, %d", trackToTrackSeekNs,
                averageSeekNs, fullStrokeSeekNs);
        require(innerZoneBytesPerSecond > 0 && innerZoneBytesPerSecond <= outerZoneBytesPerSecond,
                "need 0 < innerZoneBytesPerSecond <= outerZoneBytesPerSecond: %d, %d", innerZoneBytesPerSecond,
                outerZoneBytesPerSecond);
        require(zoneCount >= 1 && zoneCount <= 1024, "zoneCount out of range: %d", zoneCount);
        require(commandQueueDepth >= 1 && commandQueueDepth <= 256, "commandQueueDepth out of range: %d",
                commandQueueDepth);
        require(writeCacheBytes >= 0, "writeCacheBytes must be >= 0: %d", writeCacheBytes);
        require(!writeCacheEnabled || writeCacheBytes >= 4096, "an enabled write cache needs >= 4096 bytes: %d",
                writeCacheBytes);
        require(interfaceBytesPerSecond > 0, "interfaceBytesPerSecond must be > 0: %d", interfaceBytesPerSecond);
    }

    /**
     * A 7200 rpm, 4 TB desktop/NAS drive (the figures of docs/TESTING.md "Device models", typical of data sheets such
     * as WD Red / Seagate IronWolf 4 TB): seeks 0.8 / 8.5 / 16 ms, 250 → 120 MB/s over 16 zones, NCQ depth 32
     * (SATA's maximum), a 256 MiB write cache that is on (drives ship with it on), SATA 3 at 550 MB/s.
     */
    public static HddConfig defaults() {
        return new HddConfig(4_000_000_000_000L, 7200, 800_000, 8_500_000, 16_000_000, 250_000_000, 120_000_000,
                16, 32, true, 256L << 20, 550_000_000);
    }

    /** Returns a copy with the write cache switched on or off. */
    public HddConfig withWriteCache(boolean enabled) {
        return new HddConfig(sizeBytes, rotationsPerMinute, trackToTrackSeekNs, averageSeekNs, fullStrokeSeekNs,
                outerZoneBytesPerSecond, innerZoneBytesPerSecond, zoneCount, commandQueueDepth, enabled,
                writeCacheBytes, interfaceBytesPerSecond);
    }
}
