package io.blockcache.cli;

import io.blockcache.device.FileDevice;
import io.blockcache.device.FileLocks;
import io.blockcache.device.IoMessages;
import io.blockcache.device.FileDeviceOptions;
import io.blockcache.engine.CacheInspector;
import io.blockcache.engine.CacheReport;
import io.blockcache.loop.LoopCalls;
import io.blockcache.loop.RealLoop;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code blockcache check}: examines a cache file read-only, as recovery would, and reports. Exit 0 only
 * when the cache is consistent; 1 when it is not or cannot be read. With {@code --damage}, reads the damage maps of
 * backing files instead ({@link DamageCheck}); 2 for bad arguments.
 */
@Command(name = "check", mixinStandardHelpOptions = true,
        description = {"Check a cache file offline and read-only; exit status 0 only when it is consistent.",
                "Examines both superblock copies, the journal (replay range,"
                + " why it ends, corruption with its sequence and ring offset), the checkpoint, and the index"
                + " rebuilt by replay (structure, extents inside data buckets, live counts, no dirty extent with a"
                + " stale generation). With --data also verify the CRC32C of every cached extent.",
                "Backing files are not needed and nothing is written or repaired.",
                "With --damage --backing NAME=FILE...: after losing the cache device, list each volume's stale LBA"
                + " ranges from the damage map on its backing file."})
final class CheckCommand implements Callable<Integer> {
    /**
     * How long the inspection may take. With {@code --data} it reads the whole device, which on a very large,
     * slow one takes long, so the bound is loose: it only turns a lost callback into an error; a loop that dies
     * is seen at once.
     */
    private static final Duration ENGINE_CALL_TIMEOUT = Duration.ofHours(24);

    @Spec
    private CommandSpec spec;

    @Option(names = "--cache", paramLabel = "FILE", description = "The cache file to check.")
    private Path cache;

    @Option(names = "--damage", description = "Instead of a cache file, read the damage maps of the --backing files"
            + " (no cache device needed) and list the LBA ranges of each volume whose data on the backing file may"
            + " be older than what the cache had acknowledged. Exit 0: nothing stale; 1: stale ranges listed;"
            + " 3: a map could not be read (what it covers is listed as stale).")
    private boolean damage;

    @Option(names = "--backing", paramLabel = "NAME=FILE", converter = Converters.NamedFile.class,
            description = "With --damage: a backing file, named as in serve (or just FILE); repeatable.")
    private List<Named<Path>> backings;

    @Option(names = "--data-dir", paramLabel = "DIR", description = "With --damage: serve's data directory; the"
            + " damage map of every volume is read from DIR/damage-map-NAME.img, where serve's default"
            + " damage-map=file keeps it (no --backing needed).")
    private Path dataDir;

    @Option(names = "--json", description = "Print one JSON object instead of the summary.")
    private boolean json;

    @Option(names = "--data", description = "Also read all cached data and verify each extent's CRC32C"
            + " (reads every bucket holding live data).")
    private boolean data;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (damage) {
            boolean noMaps = (backings == null || backings.isEmpty()) && dataDir == null;
            if (cache != null || data || noMaps) {
                err.println("blockcache check: --damage takes --data-dir DIR (serve's) or one or more --backing"
                        + " NAME=FILE, and no --cache or --data");
                return 2;
            }
            Map<String, Path> files;
            try {
                files = dataDir != null && (backings == null || backings.isEmpty())
                        ? DamageCheck.mapsIn(dataDir, err) : Named.byName(backings, "backing name");
            } catch (IllegalArgumentException twice) {
                err.println("blockcache check: " + twice.getMessage());
                return 2;
            }
            return files == null ? 2 : DamageCheck.run(DamageCheck.whereTheMapsAre(files, dataDir, err), json, out,
                    err);
        }
        if (cache == null || backings != null || dataDir != null) {
            err.println("blockcache check: give --cache FILE (or --damage with --backing NAME=FILE)");
            return 2;
        }
        // A live cache is read while it changes: say so, and what it means, before the report.
        FileLocks.holder(cache).ifPresent(holder -> err.println("blockcache check: note: " + holder + ". This"
                + " check reads the cache read-only while that process writes it, so it sees the journal and"
                + " checkpoint as far as they were written; a mismatch in the newest records may be a write in"
                + " progress, not damage. Stop that process for an exact check."));
        CacheReport report;
        try (RealLoop loop = new RealLoop("blockcache-check")) {
            FileDevice device;
            try {
                // Read-only (O_RDONLY): check must examine a file it may not write, and must never change it.
                device = FileDevice.open(loop, cache, FileDeviceOptions.DEFAULTS.withReadOnly(true).withQueueDepth(4)
                        .withLogicalBlockBytes(512));
            } catch (IOException e) {
                err.println("blockcache check: cannot open " + IoMessages.describe(cache, e));
                return 1;
            }
            try {
                report = LoopCalls.await(loop, done -> CacheInspector.inspect(device, data, done), ENGINE_CALL_TIMEOUT);
            } finally {
                LoopCalls.<Boolean>await(loop, done -> {
                    device.close(); // on its loop, as every FileDevice call
                    done.accept(true);
                }, ENGINE_CALL_TIMEOUT);
            }
        }
        if (json) {
            out.println(CheckReportFormat.json(cache.toString(), report));
            out.flush();
        } else {
            CheckReportFormat.printText(out, cache.toString(), report);
        }
        return report.ok() ? 0 : 1;
    }
}
