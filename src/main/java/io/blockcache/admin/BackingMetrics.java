package io.blockcache.admin;

import io.blockcache.admin.MetricFamilies.Sample;
import io.blockcache.device.ObjectStoreStats;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * The metric families of remote backings, one sample per volume whose backing is of that kind: the NBD client of
 * an {@code nbd://} backing ({@code blockcache_backing_remote_*}) and the S3 device of an {@code s3://} one
 * ({@code blockcache_backing_s3_*}). No samples when every backing is local. docs/OPERATIONS.md lists each.
 *
 * <p>Thread rule: any thread (the snapshot is immutable).
 */
final class BackingMetrics {
    private final MetricFamilies families;
    private final List<StatsSnapshot.DeviceSnapshot> backings;

    private BackingMetrics(MetricFamilies families, List<StatsSnapshot.DeviceSnapshot> backings) {
        this.families = families;
        this.backings = backings;
    }

    /** Adds the families of {@code backings} to {@code families}. */
    static void add(MetricFamilies families, List<StatsSnapshot.DeviceSnapshot> backings) {
        BackingMetrics metrics = new BackingMetrics(families, backings);
        metrics.nbd();
        metrics.s3();
    }

    private void nbd() {
        Function<StatsSnapshot.DeviceSnapshot, StatsSnapshot.RemoteSnapshot> of = StatsSnapshot.DeviceSnapshot::remote;
        families.gauge("blockcache_backing_remote_connected",
                "1 while the remote backing's client is connected, 0 while the server is away (reconnecting).",
                samples(of, remote -> remote.connected() ? 1 : 0));
        families.counter("blockcache_backing_remote_breaks_total",
                "Times the remote backing's connection broke.", samples(of, remote -> remote.breaks()));
        families.counter("blockcache_backing_remote_reconnects_total",
                "Times the remote backing's client reconnected after a break.",
                samples(of, remote -> remote.reconnects()));
        families.gauge("blockcache_backing_remote_replay_log_bytes",
                "Acknowledged writes no acknowledged flush covers yet: what a reconnect writes again.",
                samples(of, remote -> remote.replayLogBytes()));
        families.counter("blockcache_backing_remote_request_timeouts_total",
                "Remote backing requests unanswered past the request timeout; each broke its connection.",
                samples(of, remote -> remote.requestTimeouts()));
    }

    private void s3() {
        Function<StatsSnapshot.DeviceSnapshot, ObjectStoreStats> of = StatsSnapshot.DeviceSnapshot::objectStore;
        List<Sample> requests = new ArrayList<>();
        for (StatsSnapshot.DeviceSnapshot device : backings) {
            ObjectStoreStats s3 = device.objectStore();
            if (s3 != null) {
                requests.add(Sample.of(s3.puts(), "volume", device.name(), "op", "put"));
                requests.add(Sample.of(s3.gets(), "volume", device.name(), "op", "get"));
                requests.add(Sample.of(s3.deletes(), "volume", device.name(), "op", "delete"));
            }
        }
        families.counter("blockcache_backing_s3_requests_total",
                "S3 requests of an s3:// backing that succeeded, by op: put (a chunk), get, delete.", requests);
        families.counter("blockcache_backing_s3_request_failures_total",
                "S3 requests (PUT, GET, DELETE) that failed after the client's attempts and the retries.",
                samples(of, s3 -> s3.failures()));
        families.counter("blockcache_backing_s3_request_retries_total",
                "S3 requests run again after a failure that may pass (dropped connection, 5xx, throttling).",
                samples(of, s3 -> s3.retries()));
        families.counter("blockcache_backing_s3_put_bytes_total", "Bytes of the chunk PUTs that succeeded.",
                samples(of, s3 -> s3.bytesPut()));
        families.counter("blockcache_backing_s3_get_bytes_total", "Bytes of the GETs that succeeded.",
                samples(of, s3 -> s3.bytesGot()));
        families.gauge("blockcache_backing_s3_staged_chunks",
                "Chunks staged in memory (written, not all durable yet); at most the staging bound.",
                samples(of, s3 -> s3.stagedChunks()));
        families.counter("blockcache_backing_s3_lease_renewals_total",
                "Renewals of the volume's owner record that succeeded.", samples(of, s3 -> s3.leaseRenewals()));
        families.counter("blockcache_backing_s3_lease_renewal_failures_total",
                "Renewals of the owner record that could not reach the store (retried at the next period).",
                samples(of, s3 -> s3.leaseRenewalFailures()));
        families.gauge("blockcache_backing_s3_fenced",
                "1 once another cache took the volume over: every later PUT and DELETE fails.",
                samples(of, s3 -> s3.fenced() ? 1 : 0));
    }

    /** One sample per backing that has a {@code T}, labelled with its volume. */
    private <T> List<Sample> samples(Function<StatsSnapshot.DeviceSnapshot, T> of, ToDoubleFunction<T> value) {
        List<Sample> samples = new ArrayList<>();
        for (StatsSnapshot.DeviceSnapshot device : backings) {
            T part = of.apply(device);
            if (part != null) {
                samples.add(Sample.of(value.applyAsDouble(part), "volume", device.name()));
            }
        }
        return samples;
    }
}
