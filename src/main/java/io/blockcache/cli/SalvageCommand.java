package io.blockcache.cli;

import io.blockcache.engine.SalvagePlan;
import io.blockcache.engine.Salvager;
import io.blockcache.engine.SuperblockRebuild;
import io.blockcache.format.CacheSuperblock;
import io.blockcache.format.Crc;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code blockcache salvage}: gets the dirty data out of a cache file whose metadata open refuses
 * ({@link Salvager}), verified by its CRC32C, into image files or onto the backing files, and lists what it could
 * not recover (docs/OPERATIONS.md "Salvage"). Reads the cache file only.
 *
 * <p>Exit status: 0 every dirty range was recovered; 1 some ranges are unrecoverable (listed) or salvage was
 * refused; 2 bad arguments.
 */
@Command(name = "salvage", mixinStandardHelpOptions = true,
        description = {"Recover the dirty data of a cache file whose checkpoint, journal or superblocks are damaged"
                + " beyond what serve and check accept: every dirty extent whose newest version is known and whose"
                + " CRC32C verifies, from the journal ring and the checkpoints that still verify.",
                "--out DIR writes one sparse image file per volume (DIR/NAME.img, volume-sized, recovered extents at"
                + " their LBAs) and DIR/salvage-report.txt and .json. --backing NAME=FILE writes the recovered"
                + " extents onto the volume's backing file after its header (stop serve first; refused if the file"
                + " is in use). Ranges whose newest version is unknown are never written, and are listed.",
                "Exit 0: everything dirty recovered; 1: some ranges unrecoverable (listed) or refused; 2: usage."})
final class SalvageCommand implements Callable<Integer> {
    /** The report files written next to the images. */
    static final String REPORT_TEXT = "salvage-report.txt";
    static final String REPORT_JSON = "salvage-report.json";

    @Spec
    private CommandSpec spec;

    @Option(names = "--cache", paramLabel = "FILE", description = "The damaged cache file (only read).")
    private Path cache;

    @Option(names = "--out", paramLabel = "DIR", description = "Write NAME.img per volume and the report here.")
    private Path out;

    @Option(names = "--backing", paramLabel = "NAME=FILE", converter = Converters.NamedFile.class,
            description = "Write volume NAME's recovered extents onto its backing FILE; repeatable. Files only (not"
                    + " nbd:// or s3://: use --out and copy).")
    private List<Named<Path>> backings;

    @Option(names = "--json", description = "Print the report as one JSON object.")
    private boolean json;

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        if (cache == null || (out == null) == (backings == null || backings.isEmpty())) {
            err.println("blockcache salvage: give --cache FILE and either --out DIR or --backing NAME=FILE...");
            return 2;
        }
        Map<String, Path> files = null;
        if (backings != null) {
            try {
                files = Named.byName(backings, "backing name");
            } catch (IllegalArgumentException twice) {
                err.println("blockcache salvage: " + twice.getMessage());
                return 2;
            }
        }
        try (FileChannel channel = FileChannel.open(cache, StandardOpenOption.READ)) {
            return salvage(channel, files, err);
        } catch (IOException e) {
            err.println("blockcache salvage: " + cache + ": " + e.getMessage());
            return 1;
        }
    }

    private int salvage(FileChannel channel, Map<String, Path> files, PrintWriter err) throws IOException {
        List<Long> holders = FileHolders.of(cache, ProcessHandle.current().pid());
        if (files == null && !holders.isEmpty()) {
            err.println("blockcache salvage: warning: " + cache + " is open in process " + holders + ": if serve runs,"
                    + " what salvage reads may be changing under it");
        }
        if (files != null) {
            if (!holders.isEmpty()) {
                err.println("blockcache salvage: " + cache + " is open in process " + holders + ": stop serve first;"
                        + " nothing was written");
                return 1;
            }
        }
        Salvager.SuperblockChoice choice = Salvager.chooseSuperblock(
                SalvageSink.readFully(channel, 0, 2 * CacheSuperblock.BYTES));
        if (choice.superblock() == null) {
            Salvager.SuperblockChoice rebuilt = SuperblockRebuild.rebuild((offset, length) ->
                    SalvageSink.readFully(channel, offset, length), channel.size());
            if (rebuilt.superblock() == null) {
                err.println("blockcache salvage: " + cache + ": " + choice.note() + "; " + rebuilt.note());
                return 1;
            }
            if (files != null) {
                err.println("blockcache salvage: " + cache + ": both superblock copies are lost, and with them the"
                        + " volume table that says which backing file holds which volume: use --out DIR, then copy"
                        + " each image's recovered ranges (listed in its report); nothing was written");
                return 1;
            }
            choice = rebuilt;
        }
        CacheSuperblock superblock = choice.superblock();
        if (channel.size() < superblock.deviceBytesMin()) {
            err.println("blockcache salvage: " + cache + " is " + channel.size() + " bytes, its superblock describes "
                    + superblock.deviceBytesMin() + ": was it truncated?");
            return 1;
        }
        boolean terminal = ProgressLine.stderrIsTerminal();
        SalvagePlan plan = Salvager.plan(superblock, (offset, length) -> SalvageSink.readFully(channel, offset,
                length), new ProgressLine(err, "salvage: scanning the journal", terminal));
        SalvageReport report = new SalvageReport(cache.toString(), choice.note(), plan);
        SalvageSink sink;
        try {
            sink = files == null ? SalvageSink.images(out, superblock) : SalvageSink.backings(files, superblock);
        } catch (SalvageSink.Refused e) {
            err.println("blockcache salvage: " + e.getMessage() + "; nothing was written");
            return 1;
        }
        try (sink) {
            copy(channel, superblock, plan, sink, report, new ProgressLine(err, "salvage: reading dirty data",
                    terminal));
            sink.force();
        }
        print(report);
        return report.complete() ? 0 : 1;
    }

    /** Reads, verifies and writes every dirty piece; records each as recovered or lost. */
    private static void copy(FileChannel channel, CacheSuperblock superblock, SalvagePlan plan, SalvageSink sink,
                             SalvageReport report, ProgressLine progress) throws IOException {
        long total = plan.volumes().stream().mapToLong(volume -> volume.dirty().size()).sum();
        long done = 0;
        for (SalvagePlan.VolumePlan volume : plan.volumes()) {
            int volumeId = volume.backing().volumeId();
            SpanCache spans = new SpanCache();
            for (SalvagePlan.Piece piece : volume.dirty()) {
                progress.accept(total == 0 ? 1 : (double) done++ / total);
                if (!sink.writes(volumeId)) {
                    report.lost(volumeId, piece.startSector(), piece.lengthSectors(), "not written: no --backing"
                            + " given for this volume");
                    continue;
                }
                byte[] span = spans.read(channel, superblock, piece);
                if (span == null) {
                    report.lost(volumeId, piece.startSector(), piece.lengthSectors(), "data in bucket "
                            + piece.bucket() + " does not match its CRC32C " + Crc.hex(piece.crc32c()));
                    continue;
                }
                int from = (piece.offsetInBucketSectors() - piece.crcOffsetInBucketSectors()) * 512;
                sink.write(volumeId, piece.startSector(), span, from, piece.lengthSectors() * 512);
                report.recovered(volumeId, piece.startSector(), piece.lengthSectors());
            }
        }
        progress.accept(1);
    }

    /** The last CRC span read and whether it verified: the pieces of one write share it and come in a row. */
    private static final class SpanCache {
        private long key = -1;
        private int crc;
        private byte[] bytes;

        /** The verified bytes of {@code piece}'s CRC span, or null if they do not match its CRC32C. */
        byte[] read(FileChannel channel, CacheSuperblock superblock, SalvagePlan.Piece piece) throws IOException {
            long spanKey = superblock.bucketOffsetBytes(piece.bucket()) + piece.crcOffsetInBucketSectors() * 512L;
            if (spanKey != key || crc != piece.crc32c() || bytes == null
                    || bytes.length != piece.crcLengthSectors() * 512) {
                key = spanKey;
                crc = piece.crc32c();
                byte[] read = SalvageSink.readFully(channel, spanKey, piece.crcLengthSectors() * 512);
                bytes = Crc.of(read, 0, read.length) == piece.crc32c() ? read : null;
                if (bytes == null) {
                    key = -1;
                }
            }
            return bytes;
        }
    }

    private void print(SalvageReport report) throws IOException {
        PrintWriter stdout = spec.commandLine().getOut();
        if (out != null) {
            StringWriter text = new StringWriter();
            report.printText(new PrintWriter(text));
            Files.writeString(out.resolve(REPORT_TEXT), text.toString(), StandardCharsets.UTF_8);
            Files.writeString(out.resolve(REPORT_JSON), report.json() + "\n", StandardCharsets.UTF_8);
        }
        if (json) {
            stdout.println(report.json());
            stdout.flush();
        } else {
            report.printText(stdout);
        }
    }
}
