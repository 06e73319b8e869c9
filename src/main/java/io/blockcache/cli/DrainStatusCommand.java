package io.blockcache.cli;

import java.io.PrintWriter;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code blockcache drain status [--volume NAME]}: one line per volume from {@code GET /api/volumes/{name}/drain} —
 * the job's state, a bar, bytes left, rate, ETA, cap, deadline, and whether it was taken up after a restart.
 *
 * <p>Exit codes: 0 answered; 1 unknown volume or no server.
 */
@Command(name = "status", mixinStandardHelpOptions = true, description = "Show each volume's drain job.")
final class DrainStatusCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Mixin
    private DrainTarget target;

    @Option(names = "--json", description = "Print each volume's job as the admin API's JSON, one object a line.")
    private boolean json;

    @Override
    public Integer call() {
        AdminClient client = target.admin.client();
        PrintWriter out = spec.commandLine().getOut();
        try {
            for (String name : target.volumes(client)) {
                AdminClient.Response response = client.get(DrainTarget.path(name));
                if (response.status() != 200) {
                    return KnobOutput.fail(spec, "drain status", AdminClient.errorMessage(response));
                }
                out.println(json ? response.body().strip() : line(name, (Map<?, ?>) JsonReader.parse(response.body())));
            }
            out.flush();
            return 0;
        } catch (AdminClient.Unreachable e) {
            return KnobOutput.fail(spec, "drain status", e.getMessage());
        }
    }

    /** One volume's line. Pure. */
    static String line(String volume, Map<?, ?> drain) {
        String state = String.valueOf(drain.get("state"));
        if (state.equals("none")) {
            return volume + ": no drain since the server started";
        }
        String head = volume + ": drain #" + StatsTable.integerText(drain.get("id")) + " " + state;
        if (state.equals("running") || state.equals("paused")) {
            double written = drain.get("writtenBackBytes") instanceof Number n ? n.doubleValue() : 0;
            double left = drain.get("dirtyBytesLeft") instanceof Number n ? n.doubleValue() : 0;
            return head + " " + DrainDisplay.bar(written, left) + " " + DrainDisplay.details(drain);
        }
        return head + (Boolean.TRUE.equals(drain.get("restored")) ? " (before the restart)" : "")
                + (drain.get("error") == null ? "" : ": " + drain.get("error"));
    }
}
