package io.blockcache.cli;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code blockcache reload}: asks a running {@code serve} to read its config file again and apply the knobs
 * ({@link ConfigReload}); prints one line per change. systemd's {@code ExecReload} runs it, so it returns only
 * once the reload is done. Exit 0 when applied, 1 with a one-line reason otherwise.
 */
@Command(name = "reload", mixinStandardHelpOptions = true,
        description = "Make a running serve re-read its config file and apply the knob.NAME lines.")
final class ReloadCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--admin", paramLabel = "HOST:PORT",
            description = "Where the server's admin API listens (default: the config file's admin-listen, else "
                    + AdminClient.ADDRESS_DEFAULT + ").")
    private String admin;

    @Option(names = "--config", paramLabel = "FILE",
            description = "The server's config file, to find --admin (admin-listen) and the admin token"
                    + " (admin-token-file).")
    private Path config;

    @Option(names = "--admin-token-file", paramLabel = "FILE",
            description = "The file holding the server's admin token (default: the config file's admin-token-file).")
    private Path tokenFile;

    @Override
    public Integer call() {
        String address = admin;
        try {
            java.util.Properties properties = ServeSettings.load(config);
            if (address == null) {
                address = config == null ? AdminClient.ADDRESS_DEFAULT : adminOf(properties);
            }
            Path token = tokenFile != null ? tokenFile : properties.getProperty(AdminTokenFile.KEY) != null
                    ? Path.of(properties.getProperty(AdminTokenFile.KEY).strip()) : null;
            AdminClient.Response response = new AdminClient(address, token).post("/api/reload");
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
        } catch (AdminClient.Unreachable | IllegalArgumentException | java.io.IOException e) {
            return KnobOutput.fail(spec, "reload", e.getMessage());
        }
    }

    /** The config file's admin-listen (or the default), as a client reaches it. */
    private static String adminOf(java.util.Properties config) {
        String configured = config.getProperty("admin-listen");
        java.net.InetSocketAddress listen = ListenAddress.parse("admin-listen", configured == null
                ? ServeSettings.ADMIN_LISTEN_DEFAULT : configured.strip());
        String host = listen.getAddress().getHostAddress();
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + listen.getPort();
    }
}
