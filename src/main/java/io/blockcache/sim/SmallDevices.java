package io.blockcache.sim;

import io.blockcache.loop.EventLoop;
import io.blockcache.loop.Prng;

/** Small simulated devices for model and crash tests: tiny volatile caches so destaging and crash fates matter. */
public final class SmallDevices {
    private SmallDevices() {
    }

    /** An SSD of {@code sizeBytes} with a 1 MiB volatile write cache and the default timings. */
    public static SsdModel ssd(EventLoop loop, long sizeBytes) {
        SsdConfig d = SsdConfig.defaults();
        return new SsdModel(loop, new SsdConfig(sizeBytes, d.readLatencyNs(), d.writeLatencyNs(), d.channelCount(),
                d.readBytesPerSecond(), d.writeBytesPerSecond(), 1 << 20, d.flushNs()));
    }

    /** A 7200 rpm disk of {@code sizeBytes} with its volatile write cache on (1 MiB). */
    public static HddModel hdd(EventLoop loop, long sizeBytes) {
        HddConfig d = HddConfig.defaults();
        return new HddModel(loop, new HddConfig(sizeBytes, d.rotationsPerMinute(), d.trackToTrackSeekNs(),
                d.averageSeekNs(), d.fullStrokeSeekNs(), d.outerZoneBytesPerSecond(), d.innerZoneBytesPerSecond(),
                d.zoneCount(), d.commandQueueDepth(), true, 1 << 20, d.interfaceBytesPerSecond()));
    }

    /**
     * An object store of {@code sizeBytes} with 64 KiB chunks (so the workloads' writes of up to 256 KiB span several)
     * and room to stage 8 of them (so staging pressure uploads partial chunks), the default latencies drawn from
     * {@code latency}.
     */
    public static ObjectStoreModel objectStore(EventLoop loop, long sizeBytes, Prng latency) {
        ObjectStoreConfig d = ObjectStoreConfig.defaults();
        return new ObjectStoreModel(loop, new ObjectStoreConfig(sizeBytes, 64 << 10, d.latencyBaseNs(),
                d.latencyTailScaleNs(), d.latencyTailShape(), d.latencyMaxNs(), d.requestBytesPerSecond(),
                d.uploadBytesPerSecond(), d.downloadBytesPerSecond(), d.requestsInFlightMax(), 8), latency);
    }
}
