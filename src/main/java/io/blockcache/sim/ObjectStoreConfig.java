package io.blockcache.sim;

import static io.blockcache.loop.Checks.require;

/**
 * The parameters of a simulated object store (S3 and its kin) holding a volume as fixed-size chunk objects,
 * validated once here. Times in nanoseconds, rates in bytes per second.
 *
 * <p>Where the defaults come from ({@link #defaults()}; docs/TESTING.md "Device models"): Amazon's "Best Practices
 * Design Patterns: Optimizing Amazon S3 Performance" (AWS whitepaper, and the S3 user guide's "Performance
 * guidelines") says that small requests (under 512 KB) see median latencies "in the tens of milliseconds", that a
 * GET or PUT still unanswered after 2 s is worth retrying (so the tail reaches seconds), that one connection
 * carries 85–90 MB/s and about 15 concurrent requests saturate a 10 Gb/s network interface. Durner, Leis and
 * Neumann, "Exploiting Cloud Object Storage for High-Performance Analytics" (PVLDB 16(11), 2023) measured the
 * same shape on S3: first-byte latency dominates small requests, with a long tail, and bandwidth comes from many
 * requests in flight, each near 50–90 MB/s.
 *
 * @param sizeBytes capacity; a positive multiple of {@code chunkBytes}
 * @param chunkBytes size of one chunk object; a power of two, at least 4096 (the real device's default: 4 MiB)
 * @param latencyBaseNs the smallest first-byte latency (network round trips, request handling)
 * @param latencyTailScaleNs scale of the heavy-tailed part added to the base: a Lomax (Pareto II) draw, so the
 *     median extra is {@code scale × (2^(1/shape) − 1)} and the mean extra {@code scale / (shape − 1)}
 * @param latencyTailShape shape of that draw; above 1 (a finite mean), smaller is a heavier tail
 * @param latencyMaxNs the draw is cut here: a real client retries a request this slow (AWS: after 2 s)
 * @param requestBytesPerSecond transfer rate of one request (one connection)
 * @param uploadBytesPerSecond the store's (the network link's) bandwidth cap for PUT bodies, shared by all PUTs
 * @param downloadBytesPerSecond the cap for GET bodies, shared by all GETs (the link is full duplex)
 * @param requestsInFlightMax requests the client has in flight at once (its connection pool); more wait in order
 * @param stagingChunksMax chunks the client stages in memory at once; a write needing another waits, and the
 *     oldest staged chunk is uploaded to make room
 */
public record ObjectStoreConfig(
        long sizeBytes,
        int chunkBytes,
        long latencyBaseNs,
        long latencyTailScaleNs,
        double latencyTailShape,
        long latencyMaxNs,
        long requestBytesPerSecond,
        long uploadBytesPerSecond,
        long downloadBytesPerSecond,
        int requestsInFlightMax,
        int stagingChunksMax) {
    private static final long MS = 1_000_000L;

    /** Validates every value and the relations between them. */
    public ObjectStoreConfig {
        require(chunkBytes >= 4096 && Integer.bitCount(chunkBytes) == 1,
                "chunkBytes must be a power of two >= 4096: %d", chunkBytes);
        require(sizeBytes > 0 && sizeBytes % chunkBytes == 0, "sizeBytes must be a positive multiple of %d: %d",
                chunkBytes, sizeBytes);
        require(latencyBaseNs >= 0 && latencyTailScaleNs >= 0, "latencies must be >= 0: %d, %d", latencyBaseNs,
                latencyTailScaleNs);
        require(latencyTailShape > 1 && latencyTailShape <= 100, "latencyTailShape must be in (1, 100]: %s",
                latencyTailShape);
        require(latencyMaxNs >= latencyBaseNs, "latencyMaxNs %d is below the base %d", latencyMaxNs, latencyBaseNs);
        require(requestBytesPerSecond > 0 && uploadBytesPerSecond > 0 && downloadBytesPerSecond > 0,
                "rates must be > 0: %d, %d, %d", requestBytesPerSecond, uploadBytesPerSecond, downloadBytesPerSecond);
        require(requestsInFlightMax >= 1 && requestsInFlightMax <= 4096, "requestsInFlightMax out of range: %d",
                requestsInFlightMax);
        require(stagingChunksMax >= 2 && stagingChunksMax <= 65536, "stagingChunksMax out of range: %d",
                stagingChunksMax);
    }

    /**
     * S3 Standard from an instance in the same region with a 10 Gb/s link (see the class comment): 4 MiB chunks;
     * first-byte latency 15 ms plus a Lomax draw of scale 47 ms and shape 2.5 (median 30 ms, mean 46 ms, p99 265 ms,
     * p99.9 0.71 s), cut at 2 s; 90 MB/s per request; 1.25 GB/s up and down; 64 requests in flight; 64 staged chunks
     * (256 MiB). Capacity 1 TiB.
     */
    public static ObjectStoreConfig defaults() {
        return new ObjectStoreConfig(1L << 40, 4 << 20, 15 * MS, 47 * MS, 2.5, 2_000 * MS, 90_000_000L,
                1_250_000_000L, 1_250_000_000L, 64, 64);
    }

    /** The same store with a capacity of {@code bytes}. */
    public ObjectStoreConfig withSize(long bytes) {
        return new ObjectStoreConfig(bytes, chunkBytes, latencyBaseNs, latencyTailScaleNs, latencyTailShape,
                latencyMaxNs, requestBytesPerSecond, uploadBytesPerSecond, downloadBytesPerSecond,
                requestsInFlightMax, stagingChunksMax);
    }

    /** The mean first-byte latency in ns, ignoring the cut (which only shortens it). */
    public double meanLatencyNs() {
        return latencyBaseNs + latencyTailScaleNs / (latencyTailShape - 1);
    }
}
