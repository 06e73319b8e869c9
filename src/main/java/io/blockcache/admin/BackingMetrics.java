package io.blockcache.admin;

import static io.blockcache.admin.MetricDescriptor.counter;
import static io.blockcache.admin.MetricDescriptor.gauge;
import static io.blockcache.admin.MetricScope.BACKING;
import static io.blockcache.admin.MetricScope.REMOTE;
import static io.blockcache.admin.MetricScope.S3;
import static io.blockcache.admin.MetricUnit.BOOLEAN;
import static io.blockcache.admin.MetricUnit.BYTES;
import static io.blockcache.admin.MetricUnit.COUNT;
import static io.blockcache.admin.MetricUnit.SECTORS;

import io.blockcache.admin.StatsSnapshot.DeviceSnapshot;
import io.blockcache.admin.StatsSnapshot.RemoteSnapshot;
import io.blockcache.device.ObjectStoreStats;
import java.util.List;

/**
 * The metrics of each volume's backing device (docs/OPERATIONS.md §7 "Backing devices"), label {@code volume}: the
 * device's counters, the NBD client of an {@code nbd://} backing ({@code blockcache_backing_remote_*}) and the S3
 * device of an {@code s3://} one ({@code blockcache_backing_s3_*}); the last two have no samples for a local
 * backing.
 *
 * <p>Thread rule: any thread (constants).
 */
public final class BackingMetrics {
    public static final MetricDescriptor<DeviceSnapshot> REQUESTS_IN_FLIGHT = gauge(BACKING,
            "blockcache_backing_requests_in_flight", COUNT,
            "Requests submitted to the backing device and not yet completed (its queue depth).")
            .json("requestsInFlight", DeviceSnapshot::requestsInFlight);
    public static final MetricDescriptor<DeviceSnapshot> COMPLETED = counter(BACKING,
            "blockcache_backing_completed_bytes_total", SECTORS, "Bytes the backing device completed, by operation.")
            .label("op")
            .series("read", "completedReadSectors", DeviceSnapshot::completedReadSectors)
            .series("write", "completedWriteSectors", DeviceSnapshot::completedWriteSectors)
            .deprecated("blockcache_backing_completed_sectors_total");
    public static final MetricDescriptor<DeviceSnapshot> ERRORS = counter(BACKING, "blockcache_backing_errors_total",
            COUNT, "Backing-device requests that failed.")
            .json("errors", DeviceSnapshot::errors);

    public static final MetricDescriptor<RemoteSnapshot> REMOTE_CONNECTED = gauge(REMOTE,
            "blockcache_backing_remote_connected", BOOLEAN,
            "1 while the remote backing's client is connected, 0 while the server is away (reconnecting).")
            .json("connected", remote -> remote.connected() ? 1 : 0);
    public static final MetricDescriptor<RemoteSnapshot> REMOTE_BREAKS = counter(REMOTE,
            "blockcache_backing_remote_breaks_total", COUNT, "Times the remote backing's connection broke.")
            .json("breaks", RemoteSnapshot::breaks);
    public static final MetricDescriptor<RemoteSnapshot> REMOTE_RECONNECTS = counter(REMOTE,
            "blockcache_backing_remote_reconnects_total", COUNT,
            "Times the remote backing's client reconnected after a break.")
            .json("reconnects", RemoteSnapshot::reconnects);
    public static final MetricDescriptor<RemoteSnapshot> REMOTE_REPLAY_LOG = gauge(REMOTE,
            "blockcache_backing_remote_replay_log_bytes", BYTES,
            "Acknowledged writes no acknowledged flush covers yet: what a reconnect writes again.")
            .json("replayLogBytes", RemoteSnapshot::replayLogBytes);
    public static final MetricDescriptor<RemoteSnapshot> REMOTE_REQUEST_TIMEOUTS = counter(REMOTE,
            "blockcache_backing_remote_request_timeouts_total", COUNT,
            "Remote backing requests unanswered past the request timeout; each broke its connection.")
            .json("requestTimeouts", RemoteSnapshot::requestTimeouts);

    public static final MetricDescriptor<ObjectStoreStats> S3_REQUESTS = counter(S3,
            "blockcache_backing_s3_requests_total", COUNT,
            "S3 requests of an s3:// backing that succeeded, by op: put (a chunk), get, delete.")
            .label("op")
            .series("put", "puts", ObjectStoreStats::puts)
            .series("get", "gets", ObjectStoreStats::gets)
            .series("delete", "deletes", ObjectStoreStats::deletes);
    public static final MetricDescriptor<ObjectStoreStats> S3_FAILURES = counter(S3,
            "blockcache_backing_s3_request_failures_total", COUNT,
            "S3 requests (PUT, GET, DELETE) that failed after the client's attempts and the retries.")
            .json("failures", ObjectStoreStats::failures);
    public static final MetricDescriptor<ObjectStoreStats> S3_RETRIES = counter(S3,
            "blockcache_backing_s3_request_retries_total", COUNT,
            "S3 requests run again after a failure that may pass (dropped connection, 5xx, throttling).")
            .json("retries", ObjectStoreStats::retries);
    public static final MetricDescriptor<ObjectStoreStats> S3_PUT_BYTES = counter(S3,
            "blockcache_backing_s3_put_bytes_total", BYTES, "Bytes of the chunk PUTs that succeeded.")
            .json("bytesPut", ObjectStoreStats::bytesPut);
    public static final MetricDescriptor<ObjectStoreStats> S3_GET_BYTES = counter(S3,
            "blockcache_backing_s3_get_bytes_total", BYTES, "Bytes of the GETs that succeeded.")
            .json("bytesGot", ObjectStoreStats::bytesGot);
    public static final MetricDescriptor<ObjectStoreStats> S3_STAGED = gauge(S3, "blockcache_backing_s3_staged_chunks",
            COUNT, "Chunks staged in memory (written, not all durable yet); at most the staging bound.")
            .json("stagedChunks", ObjectStoreStats::stagedChunks);
    public static final MetricDescriptor<ObjectStoreStats> S3_LEASE_RENEWALS = counter(S3,
            "blockcache_backing_s3_lease_renewals_total", COUNT,
            "Renewals of the volume's owner record that succeeded.")
            .json("leaseRenewals", ObjectStoreStats::leaseRenewals);
    public static final MetricDescriptor<ObjectStoreStats> S3_LEASE_RENEWAL_FAILURES = counter(S3,
            "blockcache_backing_s3_lease_renewal_failures_total", COUNT,
            "Renewals of the owner record that could not reach the store (retried at the next period).")
            .json("leaseRenewalFailures", ObjectStoreStats::leaseRenewalFailures);
    public static final MetricDescriptor<ObjectStoreStats> S3_FENCED = gauge(S3, "blockcache_backing_s3_fenced",
            BOOLEAN, "1 once another cache took the volume over: every later PUT and DELETE fails.")
            .json("fenced", s3 -> s3.fenced() ? 1 : 0);

    /** The device's own counters, in the order {@code /api/stats} writes them. */
    static final List<MetricDescriptor<?>> DEVICE_ALL = List.of(REQUESTS_IN_FLIGHT, COMPLETED, ERRORS);
    /** In the order {@code /metrics} lists them. */
    static final List<MetricDescriptor<?>> ALL = List.of(REQUESTS_IN_FLIGHT, COMPLETED, ERRORS, REMOTE_CONNECTED,
            REMOTE_BREAKS, REMOTE_RECONNECTS, REMOTE_REPLAY_LOG, REMOTE_REQUEST_TIMEOUTS, S3_REQUESTS, S3_FAILURES,
            S3_RETRIES, S3_PUT_BYTES, S3_GET_BYTES, S3_STAGED, S3_LEASE_RENEWALS, S3_LEASE_RENEWAL_FAILURES,
            S3_FENCED);

    private BackingMetrics() {
    }
}
