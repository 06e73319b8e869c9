package io.blockcache.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code blockcache drain [--volume NAME] [--admin HOST:PORT]}: asks a running server to write every dirty extent
 * back now ({@code POST /api/volumes/{name}/drain}, every volume without {@code --volume}), then polls
 * {@code /api/stats} and shows dirty bytes left, the rate and an ETA on stderr until each drain is done — that is,
 * nothing is dirty and the clean markings are durable in the journal.
 *
 * <p>Exit codes: 0 every volume clean; 1 the server refused or could not be reached, or a drain failed. Stopping
 * the command (Ctrl-C) does not stop the drain on the server.
 */
@Command(name = "drain", description = "Write all dirty data back now and wait until the cache is clean.",
        mixinStandardHelpOptions = true)
final class DrainCommand implements Callable<Integer> {
    /** Between two looks at the stats: quick enough for a human and for tests, negligible work for the server. */
    static final long POLL_MS = 200;

    @Spec
    private CommandSpec spec;

    @Option(names = "--volume", paramLabel = "NAME", description = "Drain only this volume (default: every volume).")
    private String volume;

    @Option(names = "--admin", paramLabel = "HOST:PORT", defaultValue = AdminClient.ADDRESS_DEFAULT,
            description = "Where the server's admin API listens (default: ${DEFAULT-VALUE}).")
    private String admin;

    @Override
    public Integer call() {
        AdminClient client = new AdminClient(admin);
        PrintWriter out = spec.commandLine().getOut();
        long startNs = System.nanoTime();
        try {
            Map<String, Long> pending = new LinkedHashMap<>(); // volume -> the id of the drain we wait for
            for (String name : volume != null ? List.of(volume) : volumeNames(client)) {
                AdminClient.Response started = client.post("/api/volumes/" + GetCommand.encode(name) + "/drain");
                if (started.status() != 202) {
                    return KnobOutput.fail(spec, "drain", started);
                }
                pending.put(name, ((Number) ((Map<?, ?>) JsonReader.parse(started.body())).get("drainId")).longValue());
            }
            DrainDisplay display = new DrainDisplay(spec.commandLine().getErr(), ProgressLine.stderrIsTerminal());
            while (true) {
                for (Map<?, ?> item : volumes(client)) {
                    String name = String.valueOf(item.get("name"));
                    Long id = pending.get(name);
                    if (id == null) {
                        continue;
                    }
                    Map<?, ?> drain = (Map<?, ?>) ((Map<?, ?>) item.get("writeback")).get("drain");
                    String state = String.valueOf(drain.get("state"));
                    if (state.equals("failed") && ((Number) drain.get("id")).longValue() == id) {
                        display.clear();
                        return KnobOutput.fail(spec, "drain", "volume " + name + ": " + drain.get("error"));
                    }
                    // A newer drain can only have started once ours ended: ours is done too.
                    if (state.equals("done") || ((Number) drain.get("id")).longValue() > id) {
                        display.clear();
                        out.println(name + ": clean, " + StatsTable.bytes(((Number) drain.get("writtenBackBytes"))
                                .doubleValue()) + " written back");
                        out.flush();
                        pending.remove(name);
                    } else {
                        display.show(name, drain, System.nanoTime() - startNs);
                    }
                }
                if (pending.isEmpty()) {
                    return 0;
                }
                Thread.sleep(POLL_MS);
            }
        } catch (AdminClient.Unreachable e) {
            return KnobOutput.fail(spec, "drain", e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return KnobOutput.fail(spec, "drain", "interrupted; the drain goes on in the server");
        }
    }

    private static List<String> volumeNames(AdminClient client) throws AdminClient.Unreachable {
        List<String> names = new ArrayList<>();
        for (Map<?, ?> item : volumes(client)) {
            names.add(String.valueOf(item.get("name")));
        }
        return names;
    }

    private static List<Map<?, ?>> volumes(AdminClient client) throws AdminClient.Unreachable {
        AdminClient.Response response = client.get("/api/stats");
        if (response.status() != 200) {
            throw new AdminClient.Unreachable("reading /api/stats failed: " + AdminClient.errorMessage(response));
        }
        List<Map<?, ?>> volumes = new ArrayList<>();
        for (Object item : (List<?>) ((Map<?, ?>) JsonReader.parse(response.body())).get("volumes")) {
            volumes.add((Map<?, ?>) item);
        }
        return volumes;
    }
}
