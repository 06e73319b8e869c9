package io.blockcache.cli;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code blockcache get NAME}: prints the current value of one live knob of a running server (just the
 * value, so scripts can use it), or every knob with its value and description when NAME is omitted.
 */
@Command(name = "get", description = "Print a live knob of a running server (all knobs without NAME).",
        mixinStandardHelpOptions = true)
final class GetCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Parameters(index = "0", arity = "0..1", paramLabel = "NAME", description = "Knob name, e.g. volume.default.mode.")
    private String name;

    @Mixin
    private AdminOption admin;

    @Option(names = "--json", description = "Print the admin API's JSON answer instead (one object).")
    private boolean json;

    @Override
    public Integer call() {
        AdminClient client = admin.client();
        try {
            AdminClient.Response response = client.get(name == null ? "/api/knobs" : "/api/knobs/" + encode(name));
            if (response.status() != 200) {
                return KnobOutput.fail(spec, "get", response);
            }
            KnobOutput.warn(spec, "get", response.body());
            if (json) {
                spec.commandLine().getOut().println(response.body().strip());
                spec.commandLine().getOut().flush();
                return 0;
            }
            Object parsed = JsonReader.parse(response.body());
            if (name != null) {
                spec.commandLine().getOut().println(((Map<?, ?>) parsed).get("value"));
            } else {
                spec.commandLine().getOut().print(KnobOutput.table((Map<?, ?>) parsed));
            }
            spec.commandLine().getOut().flush();
            return 0;
        } catch (AdminClient.Unreachable e) {
            return KnobOutput.fail(spec, "get", e.getMessage());
        }
    }

    static String encode(String name) {
        return URLEncoder.encode(name, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
