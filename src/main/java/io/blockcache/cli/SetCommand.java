package io.blockcache.cli;

import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code blockcache set NAME VALUE}: changes one live knob of a running server and prints the value now in
 * force. A value the knob refuses is reported with what it allows, and nothing changes.
 */
@Command(name = "set", description = "Change a live knob of a running server.", mixinStandardHelpOptions = true)
final class SetCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Parameters(index = "0", paramLabel = "NAME", description = "Knob name, e.g. volume.default.mode.")
    private String name;

    @Parameters(index = "1", paramLabel = "VALUE", description = "New value, as text.")
    private String value;

    @Mixin
    private AdminOption admin;

    @Option(names = "--json", description = "Print the admin API's JSON answer (the knob now in force) instead.")
    private boolean json;

    @Override
    public Integer call() {
        try {
            AdminClient.Response response = admin.client().put("/api/knobs/" + GetCommand.encode(name), value);
            if (response.status() != 200) {
                return KnobOutput.fail(spec, "set", response);
            }
            KnobOutput.warn(spec, "set", response.body());
            if (json) {
                spec.commandLine().getOut().println(response.body().strip());
                spec.commandLine().getOut().flush();
                return 0;
            }
            Map<?, ?> knob = (Map<?, ?>) JsonReader.parse(response.body());
            spec.commandLine().getOut().println(knob.get("name") + " = " + knob.get("value"));
            spec.commandLine().getOut().flush();
            return 0;
        } catch (AdminClient.Unreachable e) {
            return KnobOutput.fail(spec, "set", e.getMessage());
        }
    }
}
