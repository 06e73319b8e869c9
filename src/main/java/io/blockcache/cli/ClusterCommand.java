package io.blockcache.cli;

import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code blockcache cluster status | transfer-leader ID}: a replication group as one member sees it (docs/SCALE.md
 * "Replication"): who leads and serves, the term, the log positions, the replica held, and on the leader how far
 * behind each follower is. Any member answers, serving or not.
 */
@Command(name = "cluster", description = "Show a replication group (serve --node-id, --peers).",
        mixinStandardHelpOptions = true,
        subcommands = {ClusterCommand.Status.class, ClusterCommand.TransferLeader.class})
final class ClusterCommand implements Runnable {
    @Spec
    private CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** {@code cluster transfer-leader ID}: a planned move of the lead (and of serving) to another member. */
    @Command(name = "transfer-leader", description = "Hand the lead, and with it the serving of the volumes, to member"
            + " ID (maintenance of the leader's machine). Ask the leader.", mixinStandardHelpOptions = true)
    static final class TransferLeader implements Callable<Integer> {
        @Spec
        private CommandSpec spec;

        @picocli.CommandLine.Parameters(index = "0", paramLabel = "ID", description = "The member to lead.")
        private String id;

        @Mixin
        private AdminOption admin;

        @Override
        public Integer call() {
            try {
                AdminClient.Response response = admin.client().post("/api/cluster/transfer-leader?to="
                        + java.net.URLEncoder.encode(id, java.nio.charset.StandardCharsets.UTF_8));
                if (response.status() != 200) {
                    return KnobOutput.fail(spec, "cluster transfer-leader", response);
                }
                spec.commandLine().getOut().println("member " + id + " leads now; it serves once it has replayed the"
                        + " replica (blockcache cluster status says when)");
                spec.commandLine().getOut().flush();
                return 0;
            } catch (AdminClient.Unreachable e) {
                return KnobOutput.fail(spec, "cluster transfer-leader", e.getMessage());
            }
        }
    }

    /** {@code cluster status}. */
    @Command(name = "status", description = "Who leads, the term, the log and each member's catch-up.",
            mixinStandardHelpOptions = true)
    static final class Status implements Callable<Integer> {
        @Spec
        private CommandSpec spec;

        @Mixin
        private AdminOption admin;

        @Option(names = "--json", description = "Print the admin API's JSON answer instead (one object).")
        private boolean json;

        @Override
        public Integer call() {
            try {
                AdminClient.Response response = admin.client().get("/api/cluster");
                if (response.status() != 200) {
                    return KnobOutput.fail(spec, "cluster status", response);
                }
                if (json) {
                    spec.commandLine().getOut().println(response.body().strip());
                } else {
                    spec.commandLine().getOut().print(table((Map<?, ?>) JsonReader.parse(response.body())));
                }
                spec.commandLine().getOut().flush();
                return 0;
            } catch (AdminClient.Unreachable e) {
                return KnobOutput.fail(spec, "cluster status", e.getMessage());
            }
        }

        /** The status as lines: the member asked, then one line per member. */
        static String table(Map<?, ?> status) {
            StringBuilder text = new StringBuilder();
            text.append("member ").append(status.get("node")).append(": ").append(status.get("role"))
                    .append(Boolean.TRUE.equals(status.get("serving")) ? ", serving" : "")
                    .append(", term ").append(status.get("term")).append(", leader ")
                    .append(blankAsNone(status.get("leader"))).append('\n');
            text.append("log: last ").append(status.get("lastIndex")).append(", committed ")
                    .append(status.get("committedIndex")).append(", applied ").append(status.get("appliedIndex"))
                    .append("; replica ").append(ByteSizes.human(((Number) status.get("replicaBytes")).longValue()))
                    .append(" in ").append(status.get("replicaPieces")).append(" pieces\n");
            for (Object item : (List<?>) status.get("members")) {
                Map<?, ?> m = (Map<?, ?>) item;
                text.append(String.format("  %-12s %-22s", m.get("id"), m.get("address")));
                if (m.get("id").equals(status.get("node"))) {
                    text.append(" (this member)");
                } else if (m.containsKey("behindEntries")) {
                    long behind = ((Number) m.get("behindEntries")).longValue();
                    text.append(behind == 0 ? " caught up" : " " + behind + " entries behind")
                            .append(", last heard ").append(m.get("lastContactMs")).append(" ms ago");
                }
                text.append('\n');
            }
            return text.toString();
        }

        private static String blankAsNone(Object value) {
            return value == null || value.toString().isEmpty() ? "(none yet)" : value.toString();
        }
    }
}
