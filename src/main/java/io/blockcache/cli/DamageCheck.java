package io.blockcache.cli;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.FileDevice;
import io.blockcache.device.FileDeviceOptions;
import io.blockcache.engine.BackingSpec;
import io.blockcache.engine.DamageInspector;
import io.blockcache.engine.DamageReport;
import io.blockcache.host.DamageMapPlacement;
import io.blockcache.json.JsonWriter;
import io.blockcache.loop.LoopCalls;
import io.blockcache.loop.RealLoop;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code blockcache check --damage}: reads the damage maps of backing files without their cache device and lists
 * the stale LBA ranges of each volume (docs/WRITEBACK.md "When a device fails"). Read-only.
 *
 * <p>Exit status: 0 nothing is stale (the backing files are current, or consistent as of a flush epoch); 1 stale
 * ranges are listed; 3 a header or map block could not be read or trusted (what it covers is listed as stale).
 */
final class DamageCheck {
    /** Exit status when stale ranges were found. */
    static final int EXIT_STALE = 1;
    /** Exit status when a map could not be read or trusted (2 is picocli's for bad arguments). */
    static final int EXIT_UNKNOWN = 3;
    /** The maps are at most ~1 MiB per device; this only turns a lost callback into an error. */
    private static final Duration ENGINE_CALL_TIMEOUT = Duration.ofMinutes(10);

    private DamageCheck() {
    }

    /**
     * The damage map files in serve's data directory {@code dir}, by volume name ({@code damage-map-NAME.img}); null
     * after a one-line error when there are none.
     */
    static Map<String, Path> mapsIn(Path dir, PrintWriter err) {
        Map<String, Path> maps = new java.util.TreeMap<>();
        try (java.util.stream.Stream<Path> files = java.nio.file.Files.list(dir)) {
            files.forEach(file -> {
                String name = DamageMapPlacement.exportNameOf(file.getFileName().toString());
                if (name != null) {
                    maps.put(name, file);
                }
            });
        } catch (IOException e) {
            err.println("blockcache check: cannot list " + io.blockcache.device.IoMessages.describe(dir, e));
            return null;
        }
        if (maps.isEmpty()) {
            err.println("blockcache check: " + dir + " holds no damage map file (damage-map-NAME.img); with"
                    + " damage-map=backing give each backing file with --backing NAME=FILE");
            return null;
        }
        return new LinkedHashMap<>(maps);
    }

    /**
     * Where each volume's map really is: a backing file given for a volume whose map serve kept in a file (its
     * default, damage-map=file) is replaced by that file when it lies beside the backing file or in {@code dataDir};
     * read on the backing file, the map would be missing and the whole volume reported stale — a false alarm on the
     * worst day. Says each replacement on {@code err}.
     */
    static Map<String, Path> whereTheMapsAre(Map<String, Path> files, Path dataDir, PrintWriter err) {
        Map<String, Path> maps = new LinkedHashMap<>();
        files.forEach((name, file) -> {
            String mapName = DamageMapPlacement.fileName(name);
            Path found = null;
            if (!file.getFileName().toString().equals(mapName)) {
                for (Path dir : new Path[] {dataDir, file.toAbsolutePath().getParent()}) {
                    if (dir != null && java.nio.file.Files.isRegularFile(dir.resolve(mapName))) {
                        found = dir.resolve(mapName);
                        break;
                    }
                }
            }
            if (found != null) {
                err.println("blockcache check: reading the damage map of \"" + name + "\" from " + found
                        + " (serve's damage-map=file keeps it there, not on " + file + ")");
            }
            maps.put(name, found != null ? found : file);
        });
        err.flush();
        return maps;
    }

    /** Runs the check and prints the report; returns the exit status. */
    static int run(Map<String, Path> files, boolean json, PrintWriter out, PrintWriter err) {
        DamageReport report;
        try (RealLoop loop = new RealLoop("blockcache-check-damage")) {
            List<BackingSpec> specs = new ArrayList<>();
            try {
                for (Map.Entry<String, Path> file : files.entrySet()) {
                    // Read-only: the files may belong to a stopped server and must not change.
                    BlockDevice device = FileDevice.open(loop, file.getValue(), FileDeviceOptions.DEFAULTS
                            .withReadOnly(true).withQueueDepth(4).withLogicalBlockBytes(512));
                    specs.add(new BackingSpec(file.getKey(), device));
                }
                report = LoopCalls.await(loop, done -> DamageInspector.inspect(specs, done), ENGINE_CALL_TIMEOUT);
            } catch (IOException e) {
                err.println("blockcache check: cannot open backing file: " + e.getMessage());
                return EXIT_UNKNOWN;
            } finally {
                LoopCalls.<Boolean>await(loop, done -> {
                    specs.forEach(spec -> spec.device().close()); // on their loop, as every FileDevice call
                    done.accept(true);
                }, ENGINE_CALL_TIMEOUT);
            }
        }
        if (json) {
            out.println(json(files, report));
        } else {
            printText(out, files, report);
        }
        out.flush();
        return switch (report.verdict()) {
            case CLEAN -> 0;
            case STALE -> EXIT_STALE;
            case UNKNOWN -> EXIT_UNKNOWN;
        };
    }

    private static void printText(PrintWriter out, Map<String, Path> files, DamageReport report) {
        for (DamageReport.Volume volume : report.volumes()) {
            out.println("backing \"" + volume.name() + "\" (" + files.get(volume.name()) + "): "
                    + (volume.volumeSizeBytes() == 0 ? "" : "volume " + ByteSizes.human(volume.volumeSizeBytes())
                    + (volume.regionBytes() == 0 ? "" : ", map regions of " + ByteSizes.human(volume.regionBytes()))
                    + ", ") + summary(volume));
            for (DamageReport.SectorRange range : volume.staleRanges()) {
                long offset = range.startSector() * BlockDevice.SECTOR_BYTES;
                long length = range.lengthSectors() * BlockDevice.SECTOR_BYTES;
                out.println("  stale   LBA " + range.startSector() + " +" + range.lengthSectors() + " sectors (bytes "
                        + offset + ".." + (offset + length) + ", " + ByteSizes.human(length) + ")");
            }
            for (String problem : volume.problems()) {
                out.println("  PROBLEM " + problem);
            }
            if (!volume.problems().isEmpty()) {
                out.println("  hint    if serve ran with damage-map=file (its default), the map is not on this file:"
                        + " give --data-dir DIR (serve's) or --backing " + volume.name() + "=DIR/"
                        + DamageMapPlacement.fileName(volume.name()));
            }
        }
        out.println("verdict: " + switch (report.verdict()) {
            case CLEAN -> "nothing stale";
            case STALE -> "stale ranges hold older data than the lost cache had acknowledged";
            case UNKNOWN -> "some maps could not be read; what they cover is listed as stale";
        });
    }

    private static String summary(DamageReport.Volume volume) {
        if (!volume.problems().isEmpty()) {
            return "map NOT readable in full";
        }
        if (volume.consistentEpoch() >= 0) {
            return "consistent as of flush epoch " + volume.consistentEpoch() + " (nothing stale, only older)";
        }
        return volume.staleRanges().isEmpty() ? "nothing stale"
                : volume.staleRanges().size() + " stale ranges, " + ByteSizes.human(volume.staleBytes());
    }

    private static String json(Map<String, Path> files, DamageReport report) {
        JsonWriter json = new JsonWriter().beginObject()
                .field("verdict", report.verdict().name().toLowerCase(java.util.Locale.ROOT))
                .name("volumes").beginArray();
        for (DamageReport.Volume volume : report.volumes()) {
            json.beginObject().field("name", volume.name()).field("file", files.get(volume.name()).toString())
                    .field("volumeSizeBytes", volume.volumeSizeBytes()).field("regionBytes", volume.regionBytes())
                    .field("consistentEpoch", volume.consistentEpoch()).field("staleBytes", volume.staleBytes())
                    .name("staleRanges").beginArray();
            for (DamageReport.SectorRange range : volume.staleRanges()) {
                json.beginObject().field("startSector", range.startSector())
                        .field("lengthSectors", range.lengthSectors())
                        .field("offsetBytes", range.startSector() * BlockDevice.SECTOR_BYTES)
                        .field("lengthBytes", range.lengthSectors() * BlockDevice.SECTOR_BYTES).endObject();
            }
            json.endArray().name("problems").beginArray();
            volume.problems().forEach(json::value);
            json.endArray().endObject();
        }
        return json.endArray().endObject().toString();
    }
}
