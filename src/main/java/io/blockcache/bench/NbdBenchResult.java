package io.blockcache.bench;

import java.util.Locale;

/**
 * One measured cell of {@code bench nbd}: one server under one workload.
 *
 * @param server       {@code blockcache}, {@code nbdkit-file} or {@code qemu-nbd}
 * @param workload     which fio job
 * @param iops         completed requests per second over the measured runtime (ramp excluded)
 * @param mibPerSecond payload MiB (2^20 bytes) per second
 * @param p99Us        99th percentile completion latency (fio's clat), microseconds
 */
public record NbdBenchResult(String server, NbdWorkload workload, double iops, double mibPerSecond, double p99Us) {
    /** One JSON object on one line with exactly the fields the issue names. */
    public String toJsonLine() {
        return String.format(Locale.ROOT,
                "{\"server\":\"%s\",\"workload\":\"%s\",\"iops\":%.1f,\"mibPerSecond\":%.2f,\"p99Us\":%.1f}",
                server, workload.label(), iops, mibPerSecond, p99Us);
    }
}
