package io.blockcache.cli;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/** {@code HOST:PORT} on the command line, and the loopback-only rule for listeners. */
final class ListenAddress {
    private ListenAddress() {
    }

    /**
     * Parses {@code HOST:PORT} ({@code [v6]:PORT} for IPv6); port 0 means "any free port".
     *
     * @throws IllegalArgumentException saying what is wrong (the caller names the option or key)
     */
    static InetSocketAddress parse(String text) {
        int colon = text.lastIndexOf(':');
        if (colon <= 0 || colon == text.length() - 1) {
            throw new IllegalArgumentException("must be HOST:PORT, e.g. 127.0.0.1:10809; got \"" + text + "\"");
        }
        String host = text.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(text.substring(colon + 1));
        } catch (NumberFormatException e) {
            port = -1;
        }
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("port must be 0..65535; got \"" + text + "\"");
        }
        try {
            return new InetSocketAddress(InetAddress.getByName(host), port);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("unknown host \"" + host + "\"");
        }
    }

    /**
     * Refuses a non-loopback address unless remote access was allowed: without TLS (and the admin API has none)
     * anyone who can reach the port can read and overwrite the volumes. {@link TlsFlagSettings#checkRemote} then
     * asks for TLS or {@code --insecure}.
     */
    static void checkLoopback(String what, InetSocketAddress address, boolean allowRemote) {
        if (!allowRemote && !address.getAddress().isLoopbackAddress()) {
            throw new IllegalArgumentException(what + " " + address.getAddress().getHostAddress()
                    + " is not a loopback address. Without TLS (and the admin API has none) anyone who reaches the"
                    + " port can read and overwrite the volumes or change the cache. Bind to 127.0.0.1, or pass"
                    + " --allow-remote (with --tls=require, or --insecure if the network is trusted).");
        }
    }
}
