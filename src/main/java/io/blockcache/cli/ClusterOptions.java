package io.blockcache.cli;

import picocli.CommandLine.Option;

/** {@code serve}'s replication options (docs/SCALE.md, "Replication"). */
final class ClusterOptions {
    @Option(names = "--node-id", paramLabel = "ID",
            description = "This node's id in its replication group (with --peers): letters, digits, '-', '_'.")
    String nodeId;

    @Option(names = "--peers", paramLabel = "ID=HOST:PORT,...",
            description = "Every member of the replication group (3 or 5) and its replication port, this node"
                    + " included. The leader serves the volumes; the others hold their dirty data.")
    String peers;

    /** True if replication was asked for (either option given). */
    boolean enabled() {
        return nodeId != null || peers != null;
    }
}
