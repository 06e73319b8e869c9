package io.blockcache.admin;

import static io.blockcache.admin.MetricDescriptor.counter;
import static io.blockcache.admin.MetricDescriptor.gauge;
import static io.blockcache.admin.MetricScope.ADMIN;
import static io.blockcache.admin.MetricScope.NBD;
import static io.blockcache.admin.MetricUnit.BYTES;
import static io.blockcache.admin.MetricUnit.COUNT;

import io.blockcache.admin.StatsSnapshot.AdminSnapshot;
import java.util.List;

/**
 * The metrics of the servers: the NBD server beside the admin API and the admin API itself (docs/OPERATIONS.md §7
 * "NBD server", "Admin API"); absent where {@code serve} hands no such counters to the API.
 *
 * <p>Thread rule: any thread (constants).
 */
public final class ServerMetrics {
    public static final MetricDescriptor<NbdSnapshot> CONNECTIONS = gauge(NBD, "blockcache_nbd_connections", COUNT,
            "NBD connections being served.")
            .json("connectionsOpen", NbdSnapshot::connectionsOpen);
    public static final MetricDescriptor<NbdSnapshot> ACCEPTED = counter(NBD,
            "blockcache_nbd_connections_accepted_total", COUNT, "NBD connections accepted.")
            .json("connectionsAccepted", NbdSnapshot::connectionsAccepted);
    public static final MetricDescriptor<NbdSnapshot> REFUSED = counter(NBD, "blockcache_nbd_connections_refused_total",
            COUNT, "NBD connections closed at accept by a limit.")
            .label("limit")
            .series("total", "refusedConnectionsMax", NbdSnapshot::refusedConnectionsMax)
            .series("address", "refusedAddressMax", NbdSnapshot::refusedAddressMax);
    public static final MetricDescriptor<NbdSnapshot> TIMEOUTS = counter(NBD, "blockcache_nbd_timeouts_total", COUNT,
            "NBD connections closed by a timeout.")
            .label("timeout")
            .series("handshake", "handshakeTimeouts", NbdSnapshot::handshakeTimeouts)
            .series("idle", "idleTimeouts", NbdSnapshot::idleTimeouts)
            .series("reply_stall", "replyStallTimeouts", NbdSnapshot::replyStallTimeouts);
    public static final MetricDescriptor<NbdSnapshot> PROTOCOL_ERRORS = counter(NBD,
            "blockcache_nbd_protocol_errors_total", COUNT, "NBD connections closed for breaking the protocol.")
            .json("protocolErrors", NbdSnapshot::protocolErrors);
    public static final MetricDescriptor<NbdSnapshot> REQUESTS_IN_FLIGHT = gauge(NBD,
            "blockcache_nbd_requests_in_flight", COUNT, "NBD requests received and not yet answered.")
            .json("requestsInFlight", NbdSnapshot::requestsInFlight);
    public static final MetricDescriptor<NbdSnapshot> BUFFER_MAX = gauge(NBD, "blockcache_nbd_buffer_max_bytes", BYTES,
            "The NBD buffer budget.")
            .json("bufferBytesMax", NbdSnapshot::bufferBytesMax);
    public static final MetricDescriptor<NbdSnapshot> BUFFER = gauge(NBD, "blockcache_nbd_buffer_bytes", BYTES,
            "NBD buffer bytes held by requests.")
            .json("bufferBytesInUse", NbdSnapshot::bufferBytesInUse);
    public static final MetricDescriptor<NbdSnapshot> BUFFER_PEAK = gauge(NBD, "blockcache_nbd_buffer_peak_bytes",
            BYTES, "The most NBD buffer bytes held at once.")
            .json("bufferBytesInUsePeak", NbdSnapshot::bufferBytesInUsePeak);
    public static final MetricDescriptor<NbdSnapshot> BUFFER_WAITS = counter(NBD, "blockcache_nbd_buffer_waits_total",
            COUNT, "NBD requests that waited for buffer budget.")
            .json("bufferWaits", NbdSnapshot::bufferWaits);
    public static final MetricDescriptor<NbdSnapshot> ALLOCATION_FAILURES = counter(NBD,
            "blockcache_nbd_allocation_failures_total", COUNT,
            "NBD requests answered ENOMEM because a buffer could not be allocated.")
            .json("allocationFailures", NbdSnapshot::allocationFailures);
    public static final MetricDescriptor<NbdSnapshot> OUT_OF_MEMORY = counter(NBD,
            "blockcache_nbd_connections_out_of_memory_total", COUNT,
            "NBD connections ended by an out-of-memory error.")
            .json("connectionsOutOfMemory", NbdSnapshot::connectionsOutOfMemory);
    public static final MetricDescriptor<NbdSnapshot> TLS_HANDSHAKES = counter(NBD,
            "blockcache_nbd_tls_handshakes_total", COUNT, "NBD TLS handshakes, by result.")
            .label("result")
            .series("ok", "tlsHandshakes", NbdSnapshot::tlsHandshakes)
            .series("failed", "tlsHandshakeFailures", NbdSnapshot::tlsHandshakeFailures);
    public static final MetricDescriptor<NbdSnapshot> TLS_REFUSALS = counter(NBD, "blockcache_nbd_tls_refusals_total",
            COUNT, "NBD connections refused over TLS policy.")
            .label("reason")
            .series("tls_required", "tlsRequiredRefusals", NbdSnapshot::tlsRequiredRefusals)
            .series("tls_off", "tlsOffRefusals", NbdSnapshot::tlsOffRefusals);
    public static final MetricDescriptor<NbdSnapshot> EXPORT_REFUSALS = counter(NBD,
            "blockcache_nbd_export_refusals_total", COUNT, "Exports refused to an NBD client by their allow-lists"
                    + " (once per export and connection), by reason.")
            .label("reason")
            .series("address", "exportRefusalsAddress", NbdSnapshot::exportRefusalsAddress)
            .series("psk_user", "exportRefusalsPskUser", NbdSnapshot::exportRefusalsPskUser);

    public static final MetricDescriptor<AdminSnapshot> UNAUTHORIZED = counter(ADMIN,
            "blockcache_admin_unauthorized_requests_total", COUNT,
            "Admin API requests refused (401) for a missing or wrong bearer token.")
            .json("unauthorizedRequests", AdminSnapshot::unauthorizedRequests);
    public static final MetricDescriptor<AdminSnapshot> ADMIN_REFUSED = counter(ADMIN,
            "blockcache_admin_refused_requests_total", COUNT, "Admin API requests refused over the limits on requests"
                    + " in progress, by limit (429 per address; a closed connection in total).")
            .label("limit")
            .series("address", "refusedAddressMax", AdminSnapshot::refusedAddressMax)
            .series("total", "refusedRequestsMax", AdminSnapshot::refusedRequestsMax);
    public static final MetricDescriptor<AdminSnapshot> ADMIN_TIMEOUTS = counter(ADMIN,
            "blockcache_admin_request_timeouts_total", COUNT, "Admin API requests cut off (408 or a closed"
                    + " connection) for arriving too slowly or not being answered in time.")
            .json("requestTimeouts", AdminSnapshot::requestTimeouts);

    /** The NBD server's, in the order {@code /metrics} lists them (and {@code /api/stats} writes them). */
    static final List<MetricDescriptor<?>> NBD_ALL = List.of(CONNECTIONS, ACCEPTED, REFUSED, TIMEOUTS,
            PROTOCOL_ERRORS, REQUESTS_IN_FLIGHT, BUFFER_MAX, BUFFER, BUFFER_PEAK, BUFFER_WAITS, ALLOCATION_FAILURES,
            OUT_OF_MEMORY, TLS_HANDSHAKES, TLS_REFUSALS, EXPORT_REFUSALS);
    /** The admin API's, in the order {@code /metrics} lists them (and {@code /api/stats} writes them). */
    static final List<MetricDescriptor<?>> ADMIN_ALL = List.of(UNAUTHORIZED, ADMIN_REFUSED, ADMIN_TIMEOUTS);

    private ServerMetrics() {
    }
}
