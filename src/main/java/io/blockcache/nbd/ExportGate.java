package io.blockcache.nbd;

import static io.blockcache.nbd.NbdProtocol.OPT_EXPORT_NAME;

import io.blockcache.log.EventName;
import java.net.InetAddress;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiConsumer;

/**
 * One connection's view of the exports' allow-lists ({@link ExportAccess}): who the client is (its address, and
 * the PSK identity once a TLS-PSK session authenticated it) and which exports it was already refused, so that each
 * refusal is counted and logged once per export and connection however often the client asks.
 *
 * <p>Thread rule: the connection's reader thread.
 */
final class ExportGate {
    private final InetAddress peerAddress;
    private final NbdCounters counters;
    /** Takes one line for the operator (the connection adds the peer). */
    private final BiConsumer<EventName, String> log;
    /** Exports already refused on this connection; at most every export. */
    private final Set<String> refused = new TreeSet<>();
    /** The PSK identity the TLS session authenticated; null before TLS or with X.509. */
    private String pskUser;

    ExportGate(InetAddress peerAddress, NbdCounters counters, BiConsumer<EventName, String> log) {
        this.peerAddress = peerAddress;
        this.counters = counters;
        this.log = log;
    }

    /** Called once TLS is up: the PSK identity its handshake proved, or null (X.509). */
    void tlsStarted(String authenticatedPskUser) {
        pskUser = authenticatedPskUser;
    }

    /** True if the client may see and use {@code export}; nothing is counted (for NBD_OPT_LIST). */
    boolean visible(Export export) {
        return export.access().refusal(peerAddress, pskUser) == null;
    }

    /**
     * True if the client may use {@code export}; a refusal is counted and logged the first time on this connection.
     *
     * @param option the option that asked, for the log line (NBD_OPT_EXPORT_NAME closes the connection)
     */
    boolean allowed(Export export, int option) {
        ExportAccess.Refusal refusal = export.access().refusal(peerAddress, pskUser);
        if (refusal == null) {
            return true;
        }
        if (refused.add(export.name())) {
            boolean address = refusal == ExportAccess.Refusal.ADDRESS;
            (address ? counters.exportRefusalsAddress : counters.exportRefusalsPskUser).incrementAndGet();
            String who = address ? "address " + peerAddress.getHostAddress() + " is not in its allow-addresses"
                    : pskUser == null ? "the client has no PSK identity (no TLS-PSK session) and the export has"
                    + " allow-psk-users" : "PSK user '" + pskUser + "' is not in its allow-psk-users";
            log.accept(EventName.NBD_EXPORT_REFUSED, "export '" + export.name() + "' refused: " + who
                    + (option == OPT_EXPORT_NAME
                    ? "; NBD_OPT_EXPORT_NAME cannot carry an error, connection closed"
                    : "; answered NBD_REP_ERR_POLICY"));
        }
        return false;
    }
}
