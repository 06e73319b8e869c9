package io.blockcache.cli;

import io.blockcache.engine.Quantities;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code blockcache drain [--volume NAME] [--rate-max SIZE/s] [--deadline DURATION] [--detach]}: asks a running
 * server to start a drain job — every dirty extent written back now, under a rate cap and by a deadline if given
 * ({@code POST /api/volumes/{name}/drain}, every volume without {@code --volume}) — then polls {@code /api/stats}
 * and shows a bar, dirty bytes left, the rate and an ETA on stderr until each drain is done: nothing is dirty and
 * the clean markings are durable in the journal. {@code --detach} returns once the jobs are started. The jobs are
 * controlled with {@code drain pause|resume|cancel|status} (docs/WRITEBACK.md, "Drain jobs").
 *
 * <p>Exit codes: 0 every volume clean (or, detached, every job started); 1 the server refused (a deadline it cannot
 * meet, with the rate it needs) or could not be reached, or a drain failed or was cancelled — with a one-line
 * reason. Stopping the command (Ctrl-C) does not stop the drain on the server.
 */
@Command(name = "drain", description = "Write all dirty data back now and wait until the cache is clean.",
        mixinStandardHelpOptions = true, subcommands = {DrainControlCommand.Pause.class,
                DrainControlCommand.Resume.class, DrainControlCommand.Cancel.class, DrainStatusCommand.class})
final class DrainCommand implements Callable<Integer> {
    /** Between two looks at the stats: quick enough for a human and for tests, negligible work for the server. */
    static final long POLL_MS = 200;

    @Spec
    private CommandSpec spec;

    @Mixin
    private DrainTarget target;

    @Option(names = "--rate-max", paramLabel = "SIZE/s",
            description = "Cap the drain's writeback rate, e.g. 50M/s (default: full speed).")
    private String rateMax;

    @Option(names = "--deadline", paramLabel = "DURATION",
            description = "Finish within this time, e.g. 2h or 1h30m: the drain runs at the rate that needs, and is"
                    + " refused at once if the backing store cannot make it.")
    private String deadline;

    @Option(names = "--detach", description = "Start the drain and return; follow it with 'drain status'.")
    private boolean detach;

    @Override
    public Integer call() {
        String query;
        try {
            query = query(rateMax, deadline);
        } catch (IllegalArgumentException bad) {
            return KnobOutput.fail(spec, "drain", bad.getMessage());
        }
        AdminClient client = target.admin.client();
        PrintWriter out = spec.commandLine().getOut();
        long startNs = System.nanoTime();
        try {
            Map<String, Long> pending = new LinkedHashMap<>(); // volume -> the id of the drain we wait for
            for (String name : target.volumes(client)) {
                AdminClient.Response started = client.post(DrainTarget.path(name) + query);
                if (started.status() != 202) {
                    return KnobOutput.fail(spec, "drain", (target.volume == null ? "volume " + name + ": " : "")
                            + AdminClient.errorMessage(started));
                }
                Map<?, ?> answer = (Map<?, ?>) JsonReader.parse(started.body());
                long id = ((Number) answer.get("drainId")).longValue();
                pending.put(name, id);
                if (detach) {
                    out.println(name + ": drain #" + id + " " + answer.get("state")
                            + (Boolean.TRUE.equals(answer.get("joined")) ? " (joined the one already there)" : ""));
                }
            }
            out.flush();
            return detach ? 0 : follow(client, pending, startNs);
        } catch (AdminClient.Unreachable e) {
            return KnobOutput.fail(spec, "drain", e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return KnobOutput.fail(spec, "drain", "interrupted; the drain goes on in the server");
        }
    }

    /** The query string for the limits given; empty without any. */
    static String query(String rateMax, String deadline) {
        StringBuilder query = new StringBuilder();
        if (rateMax != null) {
            long bytesPerSecond = Quantities.parseBytesPerSecond(rateMax);
            if (bytesPerSecond <= 0) {
                throw new IllegalArgumentException("--rate-max \"" + rateMax + "\" must be positive");
            }
            query.append("rateMaxBytesPerSecond=").append(bytesPerSecond);
        }
        if (deadline != null) {
            query.append(query.length() == 0 ? "" : "&").append("deadlineSeconds=")
                    .append(Durations.parseSeconds(deadline));
        }
        return query.length() == 0 ? "" : "?" + query;
    }

    private int follow(AdminClient client, Map<String, Long> pending, long startNs)
            throws AdminClient.Unreachable, InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        DrainDisplay display = new DrainDisplay(spec.commandLine().getErr(), ProgressLine.stderrIsTerminal());
        while (true) {
            for (Map<?, ?> item : DrainTarget.stats(client)) {
                String name = String.valueOf(item.get("name"));
                Long id = pending.get(name);
                if (id == null) {
                    continue;
                }
                Map<?, ?> drain = (Map<?, ?>) ((Map<?, ?>) item.get("writeback")).get("drain");
                String state = String.valueOf(drain.get("state"));
                boolean ours = ((Number) drain.get("id")).longValue() == id;
                if (ours && (state.equals("failed") || state.equals("cancelled"))) {
                    display.clear();
                    return KnobOutput.fail(spec, "drain", "volume " + name + ": " + drain.get("error"));
                }
                // A newer drain can only have started once ours ended: ours is done too.
                if ((ours && state.equals("done")) || ((Number) drain.get("id")).longValue() > id) {
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
    }
}
