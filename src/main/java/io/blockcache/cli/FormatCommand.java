package io.blockcache.cli;

import io.blockcache.backing.BackingLocation;
import io.blockcache.backing.NbdDevice;
import io.blockcache.backing.NbdUri;
import io.blockcache.backing.S3Backing;
import io.blockcache.backing.S3Device;
import io.blockcache.backing.S3Options;
import io.blockcache.device.BlockDevice;
import io.blockcache.device.FileDevice;
import io.blockcache.device.FileDeviceOptions;
import io.blockcache.device.IoResult;
import io.blockcache.engine.BackingSpec;
import io.blockcache.engine.CacheInspector;
import io.blockcache.engine.CacheReport;
import io.blockcache.engine.CacheSet;
import io.blockcache.engine.CacheSetOptions;
import io.blockcache.engine.Outcome;
import io.blockcache.format.BackingHeader;
import io.blockcache.format.ExistingMetadata;
import io.blockcache.host.MetadataGuard;
import io.blockcache.loop.Prng;
import io.blockcache.loop.LoopCalls;
import io.blockcache.loop.RealLoop;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code blockcache format}: creates a cache set on files (created sparse if missing), refusing to overwrite
 * blockcache metadata without {@code --force}, then prints what was made. Exit 0 on success, 1 on failure.
 */
@Command(name = "format", mixinStandardHelpOptions = true,
        description = {"Format a cache file and attach one or more backing stores (files, block devices or NBD"
                + " exports) to it as volumes.",
                "Missing files are created sparse at --cache-size / --backing-size. A file that already holds a"
                        + " blockcache superblock or backing header is refused unless --force is given: formatting"
                        + " destroys the cache set and any dirty data in it. Backing data after the first 1 MiB"
                        + " (the backing header) is left untouched; with --in-place nothing is written on a backing."},
        footer = {"", "Example: blockcache format --cache cache.img --cache-size 1G --backing disk.img"
                + " --backing-size 10G"})
final class FormatCommand implements Callable<Integer> {
    /** Cache devices at least this big show progress; smaller ones format faster than a line could be read. */
    private static final long PROGRESS_CACHE_BYTES_MIN = 1L << 30;
    /**
     * How long one engine step (format, inspect, close) may take. Clearing the journal of a very large, slow
     * device takes long, so the bound is loose: it only turns a lost callback into an error; a loop that dies
     * is seen at once.
     */
    private static final Duration ENGINE_CALL_TIMEOUT = Duration.ofHours(24);

    @Spec
    private CommandSpec spec;

    @Option(names = "--cache", required = true, paramLabel = "FILE", description = "The cache file (fast device).")
    private Path cache;

    @Option(names = "--backing", required = true, paramLabel = "URI", converter = Converters.Backing.class,
            description = "A backing store (slow device): a file or block device (PATH or file:PATH), an NBD export"
                    + " (nbd://HOST[:PORT]/EXPORT) or an S3 volume (s3://BUCKET/PREFIX, created with --backing-size if"
                    + " absent); repeat for several volumes.")
    private List<BackingLocation> backings;

    @Option(names = "--name", paramLabel = "NAME",
            description = "Export name of each backing, in --backing order (default: \"default\" for one backing,"
                    + " else vol0, vol1, ...).")
    private List<String> names = new ArrayList<>();

    @Option(names = "--bucket-size", paramLabel = "SIZE", defaultValue = "1M", converter = Converters.Size.class,
            description = "Bucket size, a power of two from 128K to 8M (default: ${DEFAULT-VALUE}).")
    private long bucketSizeBytes;

    @Option(names = "--cache-size", paramLabel = "SIZE", converter = Converters.Size.class,
            description = "Size to create the cache file with if it does not exist (e.g. 1G, 512M).")
    private Long cacheSizeBytes;

    @Option(names = "--backing-size", paramLabel = "SIZE", converter = Converters.Size.class,
            description = "Size of the export of each backing store that is created (e.g. 10G): a missing file"
                    + " or S3 volume is created that large plus its 1 MiB header (and --backing-log).")
    private Long backingSizeBytes;

    @Option(names = "--force", description = "Overwrite files that already hold blockcache metadata.")
    private boolean force;

    @Option(names = "--s3-endpoint", paramLabel = "URL", converter = Converters.Endpoint.class,
            description = "The S3 endpoint for s3:// backings, e.g. http://127.0.0.1:9000 (MinIO, S3Proxy, Ceph RGW;"
                    + " path-style requests); default: AWS, with the region and credentials of the AWS default chains"
                    + " (AWS_REGION, AWS_ACCESS_KEY_ID, ~/.aws profiles).")
    private java.net.URI s3Endpoint;

    @Option(names = "--take-over", description = "Take s3:// volumes owned by another cache (a deliberate failover:"
            + " docs/SCALE.md).")
    private boolean takeOver;

    @Option(names = "--in-place", description = "Cache the backing stores in place: write nothing on them (no header),"
            + " export each whole, with its existing data visible at once; the cache records each one's size and a"
            + " fingerprint of sampled blocks and refuses a device that does not match at open (docs/FORMAT.md"
            + " section 4.2).")
    private boolean inPlace;

    @Option(names = "--backing-log", paramLabel = "SIZE", converter = Converters.Size.class,
            description = "Reserve a backing log of SIZE (whole MiB, e.g. 256M) on each backing (file, nbd:// export or"
                    + " s3:// volume), after its header: writeback.NAME.ordering=journaled needs one. Size it near the"
                    + " dirty data a drain finds (docs/WRITEBACK.md, \"Journaled write-back\").")
    private Long backingLogBytes;

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        try {
            return format(spec.commandLine().getOut(), err);
        } catch (FormatException e) {
            err.println("blockcache format: " + e.getMessage());
            return 1;
        }
    }

    /** An error to show the user as is. */
    private static final class FormatException extends Exception {
        FormatException(String message) {
            super(message);
        }
    }

    private int format(PrintWriter out, PrintWriter err) throws FormatException {
        checkBackingLog();
        List<String> exportNames = exportNames();
        CacheSetOptions options = options();
        checkFiles();
        try (RealLoop loop = new RealLoop("blockcache-format")) {
            List<BlockDevice> devices = new ArrayList<>();
            try {
                FileDevice cacheDevice = openOrCreate(loop, cache, cacheSizeBytes, "--cache-size", err);
                devices.add(cacheDevice);
                List<BackingSpec> specs = new ArrayList<>();
                for (int i = 0; i < backings.size(); i++) {
                    BlockDevice device = switch (backings.get(i)) {
                        case BackingLocation.File file -> openOrCreate(loop, file.path(),
                                createdBackingBytes(backings.get(i)), "--backing-size", err);
                        case BackingLocation.Nbd nbd -> openNbd(loop, nbd.uri());
                        case BackingLocation.S3 s3 -> openS3(loop, s3, err);
                    };
                    devices.add(device);
                    specs.add(new BackingSpec(exportNames.get(i), device, inPlace).withLogSizeBytes(logBytesFor(
                            backings.get(i))));
                }
                ProgressLine progress = new ProgressLine(err, "format: clearing the journal",
                        ProgressLine.stderrIsTerminal());
                boolean showProgress = cacheDevice.sizeBytes() >= PROGRESS_CACHE_BYTES_MIN;
                // UUIDs must differ between machines and runs: this is the one place we want real entropy.
                Prng ids = new Prng(new SecureRandom().nextLong());
                Outcome<Void> formatted = LoopCalls.await(loop, done -> CacheSet.format(loop, cacheDevice, specs,
                        options, ids, fraction -> {
                            if (showProgress) {
                                progress.accept(fraction);
                            }
                        }, done), ENGINE_CALL_TIMEOUT);
                if (!formatted.isOk()) {
                    throw new FormatException(formatted.error());
                }
                CacheReport report = LoopCalls.await(loop, done -> CacheInspector.inspect(cacheDevice, false, done),
                        ENGINE_CALL_TIMEOUT);
                if (!report.ok()) {
                    throw new FormatException("formatted, but the result does not check out: " + report.problems());
                }
                printSummary(out, report);
                return 0;
            } finally {
                LoopCalls.await(loop, done -> {
                    devices.forEach(BlockDevice::close);
                    done.accept(null);
                }, ENGINE_CALL_TIMEOUT);
            }
        }
    }

    /** The backing log to reserve on {@code location}: {@code --backing-log}, the same on every kind of backing. */
    /**
     * The size a backing store created for {@code location} gets: {@code --backing-size} is the export's size, so
     * the store is that plus the backing header and log in front of it (nothing with {@code --in-place}); null
     * without {@code --backing-size}. Before 2026-12-07 the store itself had the size, so an export came out 1 MiB
     * (and the log) short of what was asked.
     */
    private Long createdBackingBytes(BackingLocation location) {
        if (backingSizeBytes == null) {
            return null;
        }
        return inPlace ? backingSizeBytes
                : backingSizeBytes + BackingHeader.DEFAULT_DATA_OFFSET_BYTES + logBytesFor(location);
    }

    private long logBytesFor(BackingLocation location) {
        return backingLogBytes == null ? 0 : backingLogBytes;
    }

    private void checkBackingLog() throws FormatException {
        if (backingLogBytes == null) {
            return;
        }
        if (backingLogBytes <= 0 || backingLogBytes % (1 << 20) != 0) {
            throw new FormatException("--backing-log must be a positive whole number of MiB (e.g. 256M), got "
                    + backingLogBytes + " bytes");
        }
        if (inPlace) {
            throw new FormatException("--backing-log cannot go with --in-place: a backing cached in place carries"
                    + " nothing of the cache, a log included");
        }
    }

    private List<String> exportNames() throws FormatException {
        if (names.isEmpty()) {
            if (backings.size() == 1) {
                return List.of("default");
            }
            List<String> generated = new ArrayList<>();
            for (int i = 0; i < backings.size(); i++) {
                generated.add("vol" + i);
            }
            return generated;
        }
        if (names.size() != backings.size()) {
            throw new FormatException("got " + names.size() + " --name for " + backings.size()
                    + " --backing; give one name per backing file, in the same order, or none");
        }
        return names;
    }

    private CacheSetOptions options() throws FormatException {
        if (bucketSizeBytes > Integer.MAX_VALUE) {
            throw new FormatException("--bucket-size " + bucketSizeBytes + " is too large (at most 8M)");
        }
        try {
            return CacheSetOptions.defaults().withBucketSizeBytes((int) bucketSizeBytes);
        } catch (IllegalArgumentException e) {
            throw new FormatException("--bucket-size: " + e.getMessage());
        }
    }

    /** Refuses duplicates, missing files without a size, and blockcache metadata without --force. */
    private void checkFiles() throws FormatException {
        List<Path> all = new ArrayList<>();
        all.add(cache);
        for (BackingLocation backing : backings) {
            if (backing instanceof BackingLocation.File file) {
                all.add(file.path());
            }
        }
        Set<Path> seen = new HashSet<>();
        for (Path path : all) {
            Path normal = path.toAbsolutePath().normalize();
            if (!seen.add(normal)) {
                throw new FormatException(path + " is given twice; each device must be a different file");
            }
            if (!Files.exists(path)) {
                Long size = path == cache ? cacheSizeBytes : backingSizeBytes;
                if (size == null) {
                    throw new FormatException(path + " does not exist; give " + (path == cache ? "--cache-size"
                            : "--backing-size") + " to create it");
                }
                continue;
            }
            String contents;
            try {
                contents = MetadataGuard.describe(path);
            } catch (IOException e) {
                throw new FormatException("cannot read " + path + ": " + e.getMessage());
            }
            if (contents != null && !force) {
                throw new FormatException(refusal(path.toString(), contents));
            }
        }
    }

    /**
     * Connects to an NBD backing and refuses one that holds blockcache metadata unless --force (as for files):
     * its first blocks are read over NBD before anything is written.
     */
    private NbdDevice openNbd(RealLoop loop, NbdUri uri) throws FormatException {
        NbdDevice device;
        try {
            device = NbdDevice.open(loop, uri, NbdDevice.CONNECTIONS_DEFAULT);
        } catch (IOException e) {
            throw new FormatException(e.getMessage());
        }
        return guardHead(loop, device, uri.toString());
    }

    /**
     * Opens an S3 volume owned by this cache file, creating it when --backing-size is given and the prefix holds none,
     * and refuses one that holds blockcache metadata unless --force.
     */
    private S3Device openS3(RealLoop loop, BackingLocation.S3 location, PrintWriter err) throws FormatException {
        S3Options options;
        try {
            options = location.options().withOwnerId(S3Options.ownerIdFor(cache)).withTakeOver(takeOver)
                    .withEndpoint(s3Endpoint);
        } catch (IllegalArgumentException e) {
            throw new FormatException(e.getMessage());
        }
        SecureRandom random = new SecureRandom();
        S3Backing.Create create = backingSizeBytes == null ? S3Backing.Create.NEVER
                : new S3Backing.Create(createdBackingBytes(location), new UUID(random.nextLong(), random.nextLong()),
                        inPlace ? 0 : BackingHeader.DEFAULT_DATA_OFFSET_BYTES + logBytesFor(location));
        // Asked before the owner record is taken, so that a refusal writes nothing in the bucket.
        S3Backing.AttachGuard guard = MetadataGuard.s3Guard(force, false,
                contents -> refusal(location.display(), contents));
        try {
            return S3Backing.open(loop, location.uri(), options, create, guard, InstantSource.system(),
                    event -> err.println("blockcache format: " + event.message()));
        } catch (IOException e) {
            throw new FormatException(e.getMessage());
        }
    }

    /** Reads the head of a remote backing and refuses blockcache metadata there unless --force (closed on refusal). */
    private <T extends BlockDevice> T guardHead(RealLoop loop, T device, String display) throws FormatException {
        try {
            ByteBuffer head = ByteBuffer.allocate((int) Math.min(ExistingMetadata.HEAD_BYTES, device.sizeBytes()));
            IoResult read = LoopCalls.await(loop, done -> device.read(0, head, done::accept), ENGINE_CALL_TIMEOUT);
            if (!read.ok()) {
                throw new FormatException("cannot read " + display + ": " + read.message());
            }
            String contents = ExistingMetadata.describe(head.array());
            if (contents != null && !force) {
                throw new FormatException(refusal(display, contents));
            }
            return device;
        } catch (FormatException | RuntimeException e) {
            LoopCalls.await(loop, done -> {
                device.close();
                done.accept(null);
            }, ENGINE_CALL_TIMEOUT);
            throw e;
        }
    }

    private static String refusal(String display, String contents) {
        return "refusing to format " + display + ": it " + contents
                + ". Formatting destroys it; use --force if that is what you want";
    }

    private static FileDevice openOrCreate(RealLoop loop, Path path, Long sizeBytes, String sizeOption,
                                           PrintWriter err) throws FormatException {
        try {
            if (Files.exists(path)) {
                if (sizeBytes != null && Files.size(path) != sizeBytes) {
                    err.println("blockcache format: " + path + " exists with " + Files.size(path) + " bytes; "
                            + sizeOption + " applies only to files it creates");
                }
                return FileDevice.open(loop, path, FileDeviceOptions.DEFAULTS);
            }
            return FileDevice.create(loop, path, sizeBytes, FileDeviceOptions.DEFAULTS);
        } catch (IOException | IllegalArgumentException | UnsupportedOperationException e) {
            throw new FormatException("cannot open " + path + ": " + e.getMessage());
        }
    }

    private void printSummary(PrintWriter out, CacheReport report) {
        var superblock = report.superblock().chosen();
        out.println("formatted cache set " + superblock.cacheSetUuid());
        out.println("  cache      " + cache + ": " + superblock.bucketCount() + " buckets of "
                + ByteSizes.human(superblock.bucketSizeBytes()) + ", " + superblock.journalBuckets()
                + " journal buckets");
        for (int i = 0; i < report.volumes().size(); i++) {
            CacheReport.VolumeReport volume = report.volumes().get(i);
            out.println("  volume     \"" + volume.name() + "\" on " + backings.get(i).display() + ": "
                    + ByteSizes.human(volume.sizeBytes()) + " (" + volume.sizeBytes() + " bytes)");
        }
        out.flush();
    }
}
