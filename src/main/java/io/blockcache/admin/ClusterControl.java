package io.blockcache.admin;

/**
 * What the admin API asks of a replication group's member ({@code GET /api/cluster}, {@code POST
 * /api/cluster/transfer-leader}); implemented by the command line, which runs the member (docs/SCALE.md).
 *
 * <p>Thread rule: called on admin request threads; implementations are thread-safe.
 */
public interface ClusterControl {
    /** This member's view of the group, a JSON object. */
    String statusJson();

    /** Hands the lead to member {@code id}; null when done, else why not (one line). */
    String transferLeader(String id);
}
