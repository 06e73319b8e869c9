package io.blockcache.nbd;

import java.net.InetAddress;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Who may use one export: client address ranges, and, when TLS-PSK is on, the PSK user names (identities) allowed.
 * A null list means "anyone" for that part; both parts must allow a client. A client refused gets
 * NBD_REP_ERR_POLICY for the export and does not see it in NBD_OPT_LIST ({@link Negotiation}). Immutable: any
 * thread.
 *
 * @param addresses the ranges a client's address must fall in, or null for any address; never empty
 * @param pskUsers the PSK identities allowed, or null for any client (with or without TLS-PSK); never empty
 */
public record ExportAccess(List<AddressRange> addresses, Set<String> pskUsers) {
    /** Every client may use the export. */
    public static final ExportAccess OPEN = new ExportAccess(null, null);

    /** Why a client was refused: what {@code /api/stats} and {@code /metrics} count. */
    enum Refusal { ADDRESS, PSK_USER }

    /** @throws IllegalArgumentException if a list is given but empty */
    public ExportAccess {
        if (addresses != null) {
            if (addresses.isEmpty()) {
                throw new IllegalArgumentException("an address allow-list needs at least one range");
            }
            addresses = List.copyOf(addresses);
        }
        if (pskUsers != null) {
            if (pskUsers.isEmpty()) {
                throw new IllegalArgumentException("a PSK user allow-list needs at least one user");
            }
            pskUsers = Set.copyOf(new TreeSet<>(pskUsers));
        }
    }

    /**
     * Whether a client may use the export.
     *
     * @param address the client's address
     * @param pskUser the PSK identity its TLS session authenticated, or null (no TLS, or X.509)
     * @return null if allowed, else the first reason it is not (address before user)
     */
    Refusal refusal(InetAddress address, String pskUser) {
        if (addresses != null && addresses.stream().noneMatch(range -> range.contains(address))) {
            return Refusal.ADDRESS;
        }
        if (pskUsers != null && (pskUser == null || !pskUsers.contains(pskUser))) {
            return Refusal.PSK_USER;
        }
        return null;
    }

    /** True if every client may use the export. */
    public boolean open() {
        return addresses == null && pskUsers == null;
    }

    /** For the operator and a reload: e.g. {@code addresses [10.0.0.0/8], PSK users [alice]}, or {@code open}. */
    public String summary() {
        if (open()) {
            return "open";
        }
        String a = addresses == null ? null : "addresses " + addresses;
        String u = pskUsers == null ? null : "PSK users " + new TreeSet<>(pskUsers);
        return a == null ? u : u == null ? a : a + ", " + u;
    }
}
