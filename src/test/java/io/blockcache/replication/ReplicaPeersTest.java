package io.blockcache.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ReplicaPeersTest {
    @Test
    void aGoodListParses() {
        // Proves: three members with ports parse, and this node's address is its own entry.
        ReplicaPeers peers = ReplicaPeers.parse("b", "a=127.0.0.1:9001, b=127.0.0.1:9002,c=host-c:9003");
        assertThat(peers.members()).hasSize(3);
        assertThat(peers.selfAddress().getPort()).isEqualTo(9002);
    }

    @Test
    void eachBadListIsRefusedNamingTheCause() {
        // Proves: an id used twice, an id not among the peers, a malformed item, a bad port and a group too small to
        // survive a loss are each refused with a line that names them.
        assertThatThrownBy(() -> ReplicaPeers.parse("a", "a=h:1,a=h:2,b=h:3"))
                .hasMessageContaining("node id \"a\" is used twice");
        assertThatThrownBy(() -> ReplicaPeers.parse("d", "a=h:1,b=h:2,c=h:3"))
                .hasMessageContaining("--node-id d is not among --peers");
        assertThatThrownBy(() -> ReplicaPeers.parse("a", "a=h:1,b:2,c=h:3"))
                .hasMessageContaining("\"b:2\" is not ID=HOST:PORT");
        assertThatThrownBy(() -> ReplicaPeers.parse("a", "a=h:1,b=h:99999,c=h:3"))
                .hasMessageContaining("the port must be 1..65535");
        assertThatThrownBy(() -> ReplicaPeers.parse("a", "a=h:1,b=h:2"))
                .hasMessageContaining("needs at least 3");
        assertThatThrownBy(() -> ReplicaPeers.parse("a b", "a=h:1,b=h:2,c=h:3"))
                .hasMessageContaining("--node-id a b: expected");
    }
}
