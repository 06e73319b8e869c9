package io.blockcache.cli;

import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Spec;

/**
 * {@code blockcache reload}: asks a running {@code serve} to read its config file again and apply the knobs
 * ({@link ConfigReload}); prints one line per change. systemd's {@code ExecReload} runs it, so it returns only
 * once the reload is done. Exit 0 when applied, 1 with a one-line reason otherwise.
 */
@Command(name = "reload", mixinStandardHelpOptions = true,
        description = {"Make a running serve re-read its config file and apply the knob.NAME lines.",
                "With --config FILE (serve's file) the server's address and token are found in it."})
final class ReloadCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Mixin
    private AdminOption admin;

    @Override
    public Integer call() {
        try {
            AdminClient.Response response = admin.client().post("/api/reload");
            if (response.status() != 200) {
                return KnobOutput.fail(spec, "reload", response);
            }
            Object changes = ((Map<?, ?>) JsonReader.parse(response.body())).get("changes");
            List<?> lines = changes instanceof List<?> list ? list : List.of();
            spec.commandLine().getOut().println(lines.isEmpty() ? "blockcache reload: nothing changed"
                    : "blockcache reload: " + String.join("\nblockcache reload: ", lines.stream()
                            .map(String::valueOf).toList()));
            spec.commandLine().getOut().flush();
            return 0;
        } catch (AdminClient.Unreachable | IllegalArgumentException e) {
            return KnobOutput.fail(spec, "reload", e.getMessage());
        }
    }
}
