package io.blockcache.cli;

import java.io.PrintWriter;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code blockcache volume list | add NAME=URI | remove NAME | resize NAME SIZE}: the volumes of a running server as
 * live objects ({@code /api/volumes}, docs/OPERATIONS.md "Volumes"). Each change is durable in the cache's superblock
 * when the command returns, so a restart keeps it. Exit codes: 0 done; 1 refused (one line saying why) or the server
 * could not be reached.
 */
@Command(name = "volume", description = "List, add, remove or grow the volumes of a running server.",
        mixinStandardHelpOptions = true, subcommands = {VolumeCommand.ListVolumes.class, VolumeCommand.Add.class,
                VolumeCommand.Remove.class, VolumeCommand.Resize.class})
final class VolumeCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return 2;
    }

    /** {@code volume list [--json]}. */
    @Command(name = "list", description = "List the volumes: name, size, mode, dirty bytes and state (open, or closed"
            + " after a failed removal).",
            mixinStandardHelpOptions = true)
    static final class ListVolumes implements Callable<Integer> {
        @Spec
        private CommandSpec spec;
        @Mixin
        private AdminOption admin;
        @Option(names = "--json", description = "Print the server's JSON answer.")
        private boolean json;

        @Override
        public Integer call() {
            try {
                AdminClient.Response answer = admin.client().get("/api/volumes");
                if (answer.status() != 200) {
                    return KnobOutput.fail(spec, "volume list", AdminClient.errorMessage(answer));
                }
                print(spec, answer.body(), json);
                return 0;
            } catch (AdminClient.Unreachable e) {
                return KnobOutput.fail(spec, "volume list", e.getMessage());
            }
        }
    }

    /** {@code volume add NAME=URI [--size SIZE] [--backing-log SIZE | --in-place] [--mode M] [--force]}. */
    @Command(name = "add", description = "Attach a backing store as a new volume and export it, without a restart.",
            mixinStandardHelpOptions = true)
    static final class Add implements Callable<Integer> {
        @Spec
        private CommandSpec spec;
        @Mixin
        private AdminOption admin;
        @Parameters(paramLabel = "NAME=URI", description = "The export name and the backing store: a file path,"
                + " nbd://HOST[:PORT]/EXPORT or s3://BUCKET/PREFIX (reached as serve's --s3-endpoint says).")
        private String volume;
        @Option(names = "--size", paramLabel = "SIZE", description = "Create a missing backing file or S3 volume with a"
                + " volume of this size, e.g. 8G (the store is 1 MiB larger, for the backing header).")
        private String size;
        @Option(names = "--backing-log", paramLabel = "SIZE", description = "Reserve a backing log of SIZE (whole MiB,"
                + " e.g. 64M) after the store's header, as format --backing-log does (journaled write-back needs one);"
                + " a store that had one before needs the same size again.")
        private String backingLog;
        @Option(names = "--in-place", description = "Cache the store in place, as format --in-place does: nothing is"
                + " written on it (no header), all of it is exported with its data visible at once; the cache records"
                + " its size and a fingerprint of sampled blocks.")
        private boolean inPlace;
        @Option(names = "--mode", paramLabel = "MODE", description = "writeback, writethrough, writearound or none"
                + " (default: the server's --mode); kept across restarts.")
        private String mode;
        @Option(names = "--force", description = "Overwrite a store that holds another cache set's metadata.")
        private boolean force;

        @Override
        public Integer call() {
            int eq = volume.indexOf('=');
            if (eq <= 0 || eq == volume.length() - 1) {
                return KnobOutput.fail(spec, "volume add", "expected NAME=URI, got \"" + volume + "\"");
            }
            StringBuilder query = new StringBuilder("?name=").append(encode(volume.substring(0, eq)))
                    .append("&uri=").append(encode(volume.substring(eq + 1)));
            try {
                if (size != null) {
                    query.append("&size=").append(ByteSizes.parse(size));
                }
                if (backingLog != null) {
                    query.append("&log=").append(ByteSizes.parse(backingLog));
                }
            } catch (IllegalArgumentException bad) {
                return KnobOutput.fail(spec, "volume add", bad.getMessage());
            }
            if (mode != null) {
                query.append("&mode=").append(encode(mode));
            }
            if (force) {
                query.append("&force=true");
            }
            if (inPlace) {
                query.append("&in-place=true");
            }
            return change(spec, admin, "volume add", "POST", "/api/volumes" + query, 201);
        }
    }

    /** {@code volume remove NAME [--drain] [--discard-dirty]}. */
    @Command(name = "remove", description = "Stop exporting a volume and detach it; refused while it holds dirty"
            + " data unless --drain or --discard-dirty.", mixinStandardHelpOptions = true)
    static final class Remove implements Callable<Integer> {
        @Spec
        private CommandSpec spec;
        @Mixin
        private AdminOption admin;
        @Parameters(paramLabel = "NAME", description = "The volume.")
        private String name;
        @Option(names = "--drain", description = "Write its dirty data back first (a drain job, with its progress"
                + " on stderr), then detach.")
        private boolean drain;
        @Option(names = "--discard-dirty", description = "Detach even though its dirty data is then lost: the backing"
                + " store keeps older data there.")
        private boolean discardDirty;

        @Override
        public Integer call() {
            if (drain && discardDirty) {
                return KnobOutput.fail(spec, "volume remove", "--drain and --discard-dirty contradict each other");
            }
            if (drain) {
                int drained = new picocli.CommandLine(new DrainCommand()).setOut(spec.commandLine().getOut())
                        .setErr(spec.commandLine().getErr()).execute(drainArguments());
                if (drained != 0) {
                    return KnobOutput.fail(spec, "volume remove", "the drain of " + name + " did not finish; the"
                            + " volume stays attached");
                }
            }
            String query = discardDirty ? "?discard-dirty=true" : "";
            return change(spec, admin, "volume remove", "DELETE", "/api/volumes/" + encode(name) + query, 200);
        }

        private String[] drainArguments() {
            return admin.arguments("--volume", name).toArray(String[]::new);
        }
    }

    /** {@code volume resize NAME SIZE}. */
    @Command(name = "resize", description = "Grow a volume (a backing file is extended); clients see the new size"
            + " when they connect again. Shrinking is refused.", mixinStandardHelpOptions = true)
    static final class Resize implements Callable<Integer> {
        @Spec
        private CommandSpec spec;
        @Mixin
        private AdminOption admin;
        @Parameters(index = "0", paramLabel = "NAME", description = "The volume.")
        private String name;
        @Parameters(index = "1", paramLabel = "SIZE", description = "Its new size, e.g. 16G.")
        private String size;

        @Override
        public Integer call() {
            long bytes;
            try {
                bytes = ByteSizes.parse(size);
            } catch (IllegalArgumentException bad) {
                return KnobOutput.fail(spec, "volume resize", bad.getMessage());
            }
            return change(spec, admin, "volume resize", "POST", "/api/volumes/" + encode(name) + "/resize?size="
                    + bytes, 200);
        }
    }

    private static int change(CommandSpec spec, AdminOption admin, String verb, String method, String path,
                              int okStatus) {
        try {
            AdminClient client = admin.client();
            AdminClient.Response answer = method.equals("DELETE") ? client.delete(path) : client.post(path);
            if (answer.status() != okStatus) {
                return KnobOutput.fail(spec, verb, AdminClient.errorMessage(answer));
            }
            print(spec, answer.body(), false);
            return 0;
        } catch (AdminClient.Unreachable e) {
            return KnobOutput.fail(spec, verb, e.getMessage());
        }
    }

    /** The volume list as a table (or as the server's JSON). */
    static void print(CommandSpec spec, String body, boolean json) {
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            out.println(body.strip());
            out.flush();
            return;
        }
        out.printf("%-20s %4s %16s %-12s %14s %s%n", "NAME", "ID", "SIZE BYTES", "MODE", "DIRTY BYTES", "STATE");
        for (Object item : (List<?>) ((Map<?, ?>) JsonReader.parse(body)).get("volumes")) {
            Map<?, ?> volume = (Map<?, ?>) item;
            out.printf("%-20s %4s %16s %-12s %14s %s%n", volume.get("name"), volume.get("volumeId"),
                    volume.get("sizeBytes"), volume.get("mode"), volume.get("dirtyBytes"), volume.get("state"));
        }
        out.flush();
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }
}
