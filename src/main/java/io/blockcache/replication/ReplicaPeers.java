package io.blockcache.replication;

import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The members of a replication group as {@code serve --peers} names them: {@code ID=HOST:PORT,...}, each the address of
 * that node's replication port.
 *
 * @param self this node's id (one of {@code members})
 * @param members every member's id and replication address, in the order given
 */
public record ReplicaPeers(String self, Map<String, InetSocketAddress> members) {
    /** Ids: letters, digits, '-' and '_' (Ratis peer ids, file names in logs). */
    private static final java.util.regex.Pattern ID = java.util.regex.Pattern.compile("[A-Za-z0-9_-]{1,64}");

    /**
     * Parses {@code --node-id} and {@code --peers}.
     *
     * @throws IllegalArgumentException naming the bad part: an id used twice, an id not in the list, a malformed
     *     address, fewer than three members
     */
    public static ReplicaPeers parse(String self, String peers) {
        if (self == null || !ID.matcher(self).matches()) {
            throw new IllegalArgumentException("--node-id " + self + ": expected 1 to 64 letters, digits, '-' or '_'");
        }
        Map<String, InetSocketAddress> members = new LinkedHashMap<>();
        for (String part : peers.split(",")) {
            String item = part.strip();
            int eq = item.indexOf('=');
            int colon = item.lastIndexOf(':');
            if (eq <= 0 || colon < eq + 2 || colon == item.length() - 1) {
                throw new IllegalArgumentException("--peers: \"" + item + "\" is not ID=HOST:PORT");
            }
            String id = item.substring(0, eq);
            if (!ID.matcher(id).matches()) {
                throw new IllegalArgumentException("--peers: node id \"" + id
                        + "\": expected 1 to 64 letters, digits, '-' or '_'");
            }
            int port;
            try {
                port = Integer.parseInt(item.substring(colon + 1));
            } catch (NumberFormatException e) {
                port = -1;
            }
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("--peers: \"" + item + "\": the port must be 1..65535");
            }
            String host = item.substring(eq + 1, colon);
            if (members.put(id, InetSocketAddress.createUnresolved(host, port)) != null) {
                throw new IllegalArgumentException("--peers: node id \"" + id + "\" is used twice");
            }
        }
        if (!members.containsKey(self)) {
            throw new IllegalArgumentException("--node-id " + self + " is not among --peers " + members.keySet());
        }
        if (members.size() < 3) {
            throw new IllegalArgumentException("--peers names " + members.size() + " node(s); a replication group needs"
                    + " at least 3 (a quorum of 2 survives the loss of one)");
        }
        return new ReplicaPeers(self, Map.copyOf(members));
    }

    /** This node's replication address. */
    public InetSocketAddress selfAddress() {
        return members.get(self);
    }
}
