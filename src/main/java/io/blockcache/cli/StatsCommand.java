package io.blockcache.cli;

import java.io.PrintWriter;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code blockcache stats [--json] [--watch [SECONDS] [--count N]] [--admin HOST:PORT]}: the statistics of a running
 * server, as tables (volumes, cache device, backing devices) or as the admin API's raw JSON; with {@code --watch},
 * again every few seconds, as {@code top} does, with the rates since the last refresh on top ({@link StatsRates}).
 */
@Command(name = "stats", description = {"Show the statistics of a running server.",
        "--watch refreshes them every SECONDS (2 if not given) like top, with each volume's requests, bytes and hit"
                + " ratio per second since the last refresh on top; on a terminal the screen is redrawn, otherwise"
                + " each refresh is appended (with --json: one JSON object per line). Ctrl-C stops."},
        mixinStandardHelpOptions = true)
final class StatsCommand implements Callable<Integer> {
    /** Clears a terminal and puts the cursor top left (ECMA-48 ED 2 and CUP). */
    private static final String CLEAR_SCREEN = "\033[H\033[2J";

    @Spec
    private CommandSpec spec;

    @Option(names = "--json", description = "Print the raw JSON of /api/stats.")
    private boolean json;

    @Option(names = "--watch", arity = "0..1", fallbackValue = "2", paramLabel = "SECONDS",
            description = "Refresh every SECONDS (default 2, at least 0.1) until Ctrl-C or --count.")
    private Double watchSeconds;

    @Option(names = "--count", paramLabel = "N", defaultValue = "0",
            description = "With --watch: stop after N refreshes (0: never).")
    private int count;

    @Mixin
    private AdminOption admin;

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        if (watchSeconds != null && !(watchSeconds >= 0.1)) {
            throw new ParameterException(spec.commandLine(), "--watch takes seconds, at least 0.1, not "
                    + watchSeconds);
        }
        if (count < 0 || (count > 0 && watchSeconds == null)) {
            throw new ParameterException(spec.commandLine(), "--count takes a number of refreshes, 1 or more, and"
                    + " only with --watch");
        }
        boolean terminal = watchSeconds != null && !json && ProgressLine.stderrIsTerminal();
        Map<?, ?> before = null;
        long beforeNanos = 0;
        for (int refresh = 1; ; refresh++) {
            String body;
            try {
                AdminClient.Response response = admin.client().get("/api/stats");
                if (response.status() != 200) {
                    return KnobOutput.fail(spec, "stats", AdminClient.errorMessage(response));
                }
                body = response.body().strip();
            } catch (AdminClient.Unreachable e) {
                return KnobOutput.fail(spec, "stats", e.getMessage());
            }
            long nowNanos = System.nanoTime();
            if (json) {
                out.println(body);
            } else {
                Map<?, ?> now = (Map<?, ?>) JsonReader.parse(body);
                StringBuilder frame = new StringBuilder();
                if (watchSeconds != null) {
                    frame.append(terminal ? CLEAR_SCREEN : refresh > 1 ? "\n" : "").append(String.format(
                            "blockcache stats at %s, every %s s (Ctrl-C to stop)%n%n",
                            LocalTime.now().truncatedTo(ChronoUnit.SECONDS), watchSeconds));
                    if (before != null) {
                        frame.append(StatsRates.format(before, now, (nowNanos - beforeNanos) / 1e9)).append('\n');
                    }
                }
                frame.append(StatsTable.format(now));
                out.print(frame);
                before = now;
                beforeNanos = nowNanos;
            }
            out.flush();
            if (watchSeconds == null || refresh == count) {
                return 0;
            }
            TimeUnit.MILLISECONDS.sleep(Math.round(watchSeconds * 1000));
        }
    }
}
