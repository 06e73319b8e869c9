package io.blockcache.cli;

import io.blockcache.engine.Quantities;
import java.io.PrintWriter;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code blockcache prefetch NAME [--offset SIZE] [--length SIZE] [--rate-max SIZE/s] [--detach] [--json]}: asks a
 * running server to warm up a volume range ({@code POST /api/volumes/{name}/prefetch}): every part of it not in the
 * cache is read from the backing device into the cache as clean data, whatever the bypass rules say, under the rate
 * cap if given. Then polls {@code GET /api/volumes/{name}/prefetch} and shows the share done on stderr
 * ({@link ProgressLine}) until it ends, and prints what it did: bytes filled, found cached, left to newer writes.
 *
 * <p>Exit codes: 0 the whole range was walked (or, detached, the prefetch started); 1 the server refused (unknown
 * volume, a bad range, one already running) or could not be reached, or the prefetch stopped early — the cache had no
 * clean room (full of dirty data), it was cancelled, or a device failed — with a one-line reason. Stopping the
 * command (Ctrl-C) does not stop the prefetch on the server: {@code prefetch NAME --cancel} does.
 */
@Command(name = "prefetch", mixinStandardHelpOptions = true,
        description = "Warm up a volume: read a range (default: all of it) from the backing store into the cache.")
final class PrefetchCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Mixin
    private AdminOption admin;

    @Parameters(index = "0", paramLabel = "NAME", description = "The volume (its export name).")
    private String volume;

    @Option(names = "--offset", paramLabel = "SIZE", description = "First byte of the range, e.g. 1G (default: 0);"
            + " whole 512-byte sectors.")
    private String offset;

    @Option(names = "--length", paramLabel = "SIZE", description = "Bytes of the range, e.g. 64M (default: to the end"
            + " of the volume); whole 512-byte sectors.")
    private String length;

    @Option(names = "--rate-max", paramLabel = "SIZE/s",
            description = "Cap the reads from the backing store, e.g. 50M/s (default: as fast as it goes).")
    private String rateMax;

    @Option(names = "--detach", description = "Start the prefetch and return; follow it with GET"
            + " /api/volumes/NAME/prefetch.")
    private boolean detach;

    @Option(names = "--cancel", description = "Stop the volume's running prefetch (what it filled stays cached).")
    private boolean cancel;

    @Option(names = "--json", description = "Print the prefetch's final status as the admin API's JSON, and no"
            + " progress line.")
    private boolean json;

    @Override
    public Integer call() {
        String query;
        try {
            query = query(offset, length, rateMax);
        } catch (IllegalArgumentException bad) {
            return KnobOutput.fail(spec, "prefetch", bad.getMessage());
        }
        AdminClient client = admin.client();
        String path = path(volume);
        try {
            if (cancel) {
                AdminClient.Response asked = client.post(path + "/cancel");
                if (asked.status() != 200) {
                    return KnobOutput.fail(spec, "prefetch", AdminClient.errorMessage(asked));
                }
                Map<?, ?> status = (Map<?, ?>) JsonReader.parse(asked.body());
                return report(json ? asked.body().strip() : volume + ": prefetch #"
                        + StatsTable.integerText(status.get("id")) + " stops after its chunk", status, true);
            }
            AdminClient.Response started = client.post(path + query);
            if (started.status() != 202) {
                return KnobOutput.fail(spec, "prefetch", AdminClient.errorMessage(started));
            }
            Map<?, ?> status = (Map<?, ?>) JsonReader.parse(started.body());
            long id = ((Number) status.get("id")).longValue();
            if (detach) {
                return report(json ? started.body().strip() : volume + ": prefetch #" + id + " started", status, true);
            }
            ProgressLine progress = json ? null : new ProgressLine(spec.commandLine().getErr(), "prefetch " + volume,
                    ProgressLine.stderrIsTerminal());
            while (true) {
                AdminClient.Response polled = client.get(path);
                if (polled.status() != 200) {
                    return KnobOutput.fail(spec, "prefetch", AdminClient.errorMessage(polled));
                }
                status = (Map<?, ?>) JsonReader.parse(polled.body());
                if (!(status.get("id") instanceof Number n) || n.longValue() != id) {
                    return KnobOutput.fail(spec, "prefetch", "prefetch #" + id + " was replaced by another one");
                }
                if (progress != null) {
                    progress.accept(fraction(status));
                }
                if (!"running".equals(status.get("state"))) {
                    return report(json ? polled.body().strip() : summary(volume, status), status, false);
                }
                Thread.sleep(DrainCommand.POLL_MS);
            }
        } catch (AdminClient.Unreachable e) {
            return KnobOutput.fail(spec, "prefetch", e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return KnobOutput.fail(spec, "prefetch", "interrupted; the prefetch goes on in the server");
        }
    }

    private int report(String line, Map<?, ?> status, boolean started) {
        PrintWriter out = spec.commandLine().getOut();
        out.println(line);
        out.flush();
        String state = String.valueOf(status.get("state"));
        if (started || state.equals("done")) {
            return 0;
        }
        return KnobOutput.fail(spec, "prefetch", "volume " + volume + ": stopped (" + state + "): "
                + status.get("message"));
    }

    /** The query string for the options given; empty without any. Pure. */
    static String query(String offset, String length, String rateMax) {
        StringBuilder query = new StringBuilder();
        if (offset != null) {
            query.append("&offset=").append(Quantities.parseBytes(offset));
        }
        if (length != null) {
            query.append("&length=").append(Quantities.parseBytes(length));
        }
        if (rateMax != null) {
            long bytesPerSecond = Quantities.parseBytesPerSecond(rateMax);
            if (bytesPerSecond <= 0) {
                throw new IllegalArgumentException("--rate-max \"" + rateMax + "\" must be positive");
            }
            query.append("&rate=").append(bytesPerSecond);
        }
        return query.length() == 0 ? "" : "?" + query.substring(1);
    }

    /** Share of the range walked, 0 to 1. Pure. */
    static double fraction(Map<?, ?> status) {
        double length = number(status, "lengthBytes");
        return length == 0 ? 1 : number(status, "doneBytes") / length;
    }

    /** The closing line: what was walked, filled, found cached and left to newer writes. Pure. */
    static String summary(String volume, Map<?, ?> status) {
        return volume + ": prefetch #" + StatsTable.integerText(status.get("id")) + " " + status.get("state") + ", "
                + StatsTable.bytes(number(status, "doneBytes")) + " of "
                + StatsTable.bytes(number(status, "lengthBytes"))
                + " walked: " + StatsTable.bytes(number(status, "filledBytes")) + " filled, "
                + StatsTable.bytes(number(status, "cachedBytes")) + " already cached, "
                + StatsTable.bytes(number(status, "racedBytes")) + " left to newer writes";
    }

    private static double number(Map<?, ?> status, String key) {
        return status.get(key) instanceof Number n ? n.doubleValue() : 0;
    }

    /** The prefetch path of {@code name}, URL-encoded. */
    static String path(String name) {
        return "/api/volumes/" + GetCommand.encode(name) + "/prefetch";
    }
}
