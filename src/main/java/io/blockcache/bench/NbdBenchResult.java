package io.blockcache.bench;

import io.blockcache.json.JsonWriter;

/**
 * One measured cell of {@code bench nbd}: one server under one workload.
 *
 * @param server          {@code blockcache}, {@code nbdkit-file}, {@code qemu-nbd} (or a baseline build's name)
 * @param workload        which fio job
 * @param iops            completed requests per second over the measured runtime (ramp excluded)
 * @param mibPerSecond    payload MiB (2^20 bytes) per second
 * @param p99Us           99th percentile completion latency (fio's clat), microseconds
 * @param cpuUsPerRequest the server process's user + system CPU time over the measured runtime, microseconds,
 *                        divided by the requests fio completed in it (NaN if none)
 * @param peakRssBytes    the server process's peak resident set ({@code VmHWM}) at the end of the row, bytes
 * @param stealPercent    CPU time the host took from the machine over the measured runtime, % of all CPU time
 *                        ({@link HostSteal}; NaN where unknown)
 */
public record NbdBenchResult(String server, NbdWorkload workload, double iops, double mibPerSecond, double p99Us,
                             double cpuUsPerRequest, long peakRssBytes, double stealPercent) {
    /** A cell measured where the host's steal is unknown. */
    public NbdBenchResult(String server, NbdWorkload workload, double iops, double mibPerSecond, double p99Us,
                          double cpuUsPerRequest, long peakRssBytes) {
        this(server, workload, iops, mibPerSecond, p99Us, cpuUsPerRequest, peakRssBytes, Double.NaN);
    }

    /** One JSON object on one line. */
    public String toJsonLine() {
        return toJson(new JsonWriter().beginObject()).endObject().toString();
    }

    /** {@link #toJsonLine()} with {@code "run":run} first, for {@code --runs N}, where runs count from 1. */
    public String toJsonLine(int run) {
        return toJson(new JsonWriter().beginObject().field("run", run)).endObject().toString();
    }

    private JsonWriter toJson(JsonWriter json) {
        json.field("server", server).field("workload", workload.label());
        BenchJson.decimal(json, "iops", iops, 1);
        BenchJson.decimal(json, "mibPerSecond", mibPerSecond, 2);
        BenchJson.decimal(json, "p99Us", p99Us, 1);
        BenchJson.decimal(json, "cpuUsPerRequest", cpuUsPerRequest, 2);
        BenchJson.decimal(json, "peakRssMiB", peakRssBytes / 1048576.0, 1);
        return BenchJson.decimal(json, "stealPercent", stealPercent, 1);
    }
}
