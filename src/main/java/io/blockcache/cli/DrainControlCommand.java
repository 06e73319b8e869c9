package io.blockcache.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code blockcache drain pause|resume|cancel [--volume NAME]}: {@code POST /api/volumes/{name}/drain/ACTION}. With
 * {@code --volume}, the server's refusal (no drain to act on) is an error; without, every volume with a drain to act
 * on is acted on, and having none at all is the error.
 *
 * <p>Exit codes: 0 done; 1 refused or unreachable, with the server's reason.
 */
abstract class DrainControlCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Mixin
    private DrainTarget target;

    private final String action;

    DrainControlCommand(String action) {
        this.action = action;
    }

    @Override
    public Integer call() {
        AdminClient client = target.admin.client();
        PrintWriter out = spec.commandLine().getOut();
        String verb = "drain " + action;
        try {
            List<String> refusals = new ArrayList<>();
            int acted = 0;
            for (String name : target.volumes(client)) {
                AdminClient.Response response = client.post(DrainTarget.path(name) + "/" + action);
                if (response.status() == 200) {
                    Map<?, ?> drain = (Map<?, ?>) JsonReader.parse(response.body());
                    out.println(name + ": drain #" + StatsTable.integerText(drain.get("id")) + " "
                            + drain.get("state"));
                    acted++;
                } else if (target.volume != null || response.status() != 409) {
                    return KnobOutput.fail(spec, verb, AdminClient.errorMessage(response));
                } else {
                    refusals.add(AdminClient.errorMessage(response));
                }
            }
            out.flush();
            if (acted == 0) {
                return KnobOutput.fail(spec, verb, refusals.isEmpty() ? "no volumes" : String.join("; ", refusals));
            }
            return 0;
        } catch (AdminClient.Unreachable e) {
            return KnobOutput.fail(spec, verb, e.getMessage());
        }
    }

    /** {@code drain pause}. */
    @Command(name = "pause", mixinStandardHelpOptions = true,
            description = "Hold a drain: no writeback on the volume until resumed (or cancelled).")
    static final class Pause extends DrainControlCommand {
        Pause() {
            super("pause");
        }
    }

    /** {@code drain resume}. */
    @Command(name = "resume", mixinStandardHelpOptions = true, description = "Let a paused drain go on.")
    static final class Resume extends DrainControlCommand {
        Resume() {
            super("resume");
        }
    }

    /** {@code drain cancel}. */
    @Command(name = "cancel", mixinStandardHelpOptions = true,
            description = "Stop a drain: writeback returns to its normal policy, dirty data stays dirty.")
    static final class Cancel extends DrainControlCommand {
        Cancel() {
            super("cancel");
        }
    }
}
