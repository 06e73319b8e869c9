package io.blockcache.backing;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * A parsed {@code nbd://host[:port]/export} (the NBD URI form of the reference NBD project's doc/uri.md, TCP
 * only, without TLS or query parameters).
 *
 * @param host host name or address
 * @param port TCP port, 1..65535 (default 10809, the IANA port for NBD)
 * @param exportName export name, possibly empty (the server's default export), at most 4096 bytes of UTF-8
 */
public record NbdUri(String host, int port, String exportName) {
    /** The IANA-assigned NBD port. */
    public static final int PORT_DEFAULT = 10809;
    /** The NBD protocol's limit on strings (doc/proto.md: "4096 bytes"). */
    static final int EXPORT_NAME_BYTES_MAX = 4096;

    public NbdUri {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(exportName, "exportName");
        if (host.isEmpty()) {
            throw new IllegalArgumentException("an NBD URI needs a host");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("NBD port must be 1..65535, got " + port);
        }
        if (exportName.getBytes(StandardCharsets.UTF_8).length > EXPORT_NAME_BYTES_MAX) {
            throw new IllegalArgumentException("NBD export name longer than " + EXPORT_NAME_BYTES_MAX + " bytes");
        }
    }

    /**
     * Parses {@code nbd://host[:port]/export}.
     *
     * @throws IllegalArgumentException with a one-line message naming the URI and what is wrong
     */
    public static NbdUri parse(String text) {
        URI uri;
        try {
            uri = new URI(text);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("not a valid NBD URI \"" + text + "\": " + e.getMessage());
        }
        if (!"nbd".equals(uri.getScheme()) || uri.getHost() == null) {
            throw new IllegalArgumentException("not an NBD URI \"" + text + "\": expected nbd://host[:port]/export");
        }
        if (uri.getRawQuery() != null || uri.getRawFragment() != null || uri.getRawUserInfo() != null) {
            throw new IllegalArgumentException("NBD URI \"" + text + "\": user info, query and fragment are not "
                    + "supported; expected nbd://host[:port]/export");
        }
        String path = uri.getPath() == null ? "" : uri.getPath();
        String export = path.startsWith("/") ? path.substring(1) : path;
        String host = uri.getHost().startsWith("[") ? uri.getHost().substring(1, uri.getHost().length() - 1)
                : uri.getHost(); // an IPv6 literal: the brackets belong to the URI, not the address
        try {
            return new NbdUri(host, uri.getPort() == -1 ? PORT_DEFAULT : uri.getPort(), export);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("NBD URI \"" + text + "\": " + e.getMessage());
        }
    }

    @Override
    public String toString() {
        return "nbd://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port + "/" + exportName;
    }
}
