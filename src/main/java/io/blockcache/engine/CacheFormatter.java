package io.blockcache.engine;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.IoCallback;
import io.blockcache.format.AttachedBacking;
import io.blockcache.format.BackingHeader;
import io.blockcache.format.DamageMapBlock;
import io.blockcache.format.DamageMapGeometry;
import io.blockcache.format.CacheSuperblock;
import io.blockcache.index.ExtentIndex;
import io.blockcache.loop.Prng;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.DoubleConsumer;

/**
 * Formats a cache set (docs/FORMAT.md §2–§4). Order, so that a crash part-way never leaves something that
 * opens as a valid cache set with the wrong contents: take the fingerprints of backings cached in place (reads
 * only), invalidate the old superblocks, clear the journal ring, write the backing headers (none on a backing
 * cached in place), and write the new superblock copies last (A, flush, B, flush).
 */
final class CacheFormatter {
    private final BlockDevice cacheDevice;
    private final List<BackingSpec> backings;
    private final CacheSuperblock superblock;
    private final List<BackingHeader> headers = new ArrayList<>();
    private final DoubleConsumer progress;
    private final byte[] zeroes = new byte[DeviceBytes.CHUNK_BYTES];

    private CacheFormatter(BlockDevice cacheDevice, List<BackingSpec> backings, CacheSuperblock superblock,
                           DoubleConsumer progress) {
        this.cacheDevice = cacheDevice;
        this.backings = backings;
        this.superblock = superblock;
        this.progress = progress;
    }

    /** Validates everything first, then formats; {@code done} gets the error message of the first problem. */
    static void format(BlockDevice cacheDevice, List<BackingSpec> backings, CacheSetOptions options, Prng ids,
                       DoubleConsumer progress, Consumer<Outcome<Void>> done) {
        String problem = validate(cacheDevice, backings, options);
        if (problem != null) {
            done.accept(Outcome.failed(problem));
            return;
        }
        fingerprints(backings, 0, new ArrayList<>(), fingerprints -> {
            if (!fingerprints.isOk()) {
                done.accept(Outcome.failed(fingerprints.error()));
                return;
            }
            keepLayouts(backings, 0, kept -> {
                if (kept != null) {
                    done.accept(Outcome.failed(kept));
                    return;
                }
                format(cacheDevice, backings, options, ids, fingerprints.value(), progress, done);
            });
        });
    }

    /** Refuses to move any volume's data ({@link BackingHeaderWrite#layoutProblem}); {@code done} gets null, or why. */
    private static void keepLayouts(List<BackingSpec> backings, int index, Consumer<String> done) {
        if (index == backings.size()) {
            done.accept(null);
            return;
        }
        BackingHeaderWrite.layoutProblem(backings.get(index), "Format", problem -> {
            if (problem != null) {
                done.accept(problem);
                return;
            }
            keepLayouts(backings, index + 1, done);
        });
    }

    /** Takes the fingerprint of every backing cached in place (0 for the others), in order. */
    private static void fingerprints(List<BackingSpec> backings, int index, List<Long> taken,
                                     Consumer<Outcome<List<Long>>> done) {
        if (index == backings.size()) {
            done.accept(Outcome.ok(taken));
            return;
        }
        BackingSpec spec = backings.get(index);
        if (!spec.inPlace()) {
            taken.add(0L);
            fingerprints(backings, index + 1, taken, done);
            return;
        }
        BackingFingerprint.of(spec.device(), fingerprint -> {
            if (!fingerprint.isOk()) {
                done.accept(Outcome.failed("backing device \"" + spec.name() + "\": " + fingerprint.error()));
                return;
            }
            taken.add(fingerprint.value());
            fingerprints(backings, index + 1, taken, done);
        });
    }

    private static void format(BlockDevice cacheDevice, List<BackingSpec> backings, CacheSetOptions options,
                               Prng ids, List<Long> fingerprints, DoubleConsumer progress,
                               Consumer<Outcome<Void>> done) {
        int bucketCount = Geometry.bucketCount(cacheDevice.sizeBytes(), options.bucketSizeBytes());
        UUID setUuid = uuid(ids);
        List<AttachedBacking> attached = new ArrayList<>();
        for (int i = 0; i < backings.size(); i++) {
            BackingSpec spec = backings.get(i);
            attached.add(spec.inPlace()
                    ? new AttachedBacking(uuid(ids), spec.device().sizeBytes(),
                            AttachedBacking.IN_PLACE_DATA_OFFSET_BYTES, i, spec.name(), fingerprints.get(i))
                    : new AttachedBacking(uuid(ids), Geometry.volumeBytes(spec.device().sizeBytes(),
                            spec.logSizeBytes()), BackingHeader.DEFAULT_DATA_OFFSET_BYTES + spec.logSizeBytes(), i,
                            spec.name()));
        }
        CacheSuperblock superblock = new CacheSuperblock(1, setUuid, cacheDevice.logicalBlockBytes(),
                options.bucketSizeBytes(), bucketCount, Geometry.DATA_START_BYTES, 0,
                Geometry.journalBuckets(bucketCount, options.journalBuckets()), 0, attached);
        CacheFormatter formatter = new CacheFormatter(cacheDevice, backings, superblock, progress);
        for (AttachedBacking backing : attached) {
            formatter.headers.add(backing.inPlace() ? null : new BackingHeader(backing.backingUuid(), setUuid,
                    backing.dataOffsetBytes(), backing.volumeSizeBytes(),
                    backing.dataOffsetBytes() - BackingHeader.DEFAULT_DATA_OFFSET_BYTES));
        }
        formatter.run(done);
    }

    /** Why a cache device of {@code sizeBytes} cannot be formatted with {@code options}, or null if it can. */
    static String cacheGeometryProblem(long sizeBytes, CacheSetOptions options) {
        int bucketCount = Geometry.bucketCount(sizeBytes, options.bucketSizeBytes());
        int journal = Geometry.journalBuckets(bucketCount, options.journalBuckets());
        if (fits(bucketCount, journal)) {
            return null;
        }
        String smallest = "";
        for (int count = Math.max(bucketCount, Geometry.BUCKETS_MIN); count <= SMALLEST_SEARCH_BUCKETS; count++) {
            if (fits(count, Geometry.journalBuckets(count, options.journalBuckets()))) {
                long bytes = Geometry.DATA_START_BYTES + (long) count * options.bucketSizeBytes();
                smallest = " (at least " + ((bytes + (1 << 20) - 1) >> 20) + " MiB with this bucket size)";
                break;
            }
        }
        return "cache device of " + sizeBytes + " bytes holds " + bucketCount + " buckets of "
                + options.bucketSizeBytes() + " bytes with a journal of " + journal + "; need at least "
                + Geometry.BUCKETS_MIN + " buckets and a journal of 3 to a quarter of them" + smallest;
    }

    /** How far the hint in {@link #cacheGeometryProblem} looks for the smallest size that fits. */
    private static final int SMALLEST_SEARCH_BUCKETS = 4096;

    private static boolean fits(int bucketCount, int journal) {
        return bucketCount >= Geometry.BUCKETS_MIN && journal >= 3 && journal <= bucketCount / 4;
    }

    private static String validate(BlockDevice cacheDevice, List<BackingSpec> backings, CacheSetOptions options) {
        if (backings.isEmpty() || backings.size() > CacheSuperblock.BACKINGS_MAX) {
            return "a cache set needs 1 to " + CacheSuperblock.BACKINGS_MAX + " backing devices, got "
                    + backings.size();
        }
        String geometry = cacheGeometryProblem(cacheDevice.sizeBytes(), options);
        if (geometry != null) {
            return geometry;
        }
        Set<String> names = new HashSet<>();
        for (BackingSpec spec : backings) {
            if (!names.add(spec.name())) {
                return "export name \"" + spec.name() + "\" is used twice";
            }
            if (spec.name().getBytes(StandardCharsets.UTF_8).length > AttachedBacking.EXPORT_NAME_BYTES_MAX) {
                return "export name \"" + spec.name() + "\" is longer than " + AttachedBacking.EXPORT_NAME_BYTES_MAX
                        + " bytes";
            }
            if (spec.inPlace() && spec.device().sizeBytes() < BackingFingerprint.DEVICE_BYTES_MIN) {
                return "backing device \"" + spec.name() + "\" of " + spec.device().sizeBytes()
                        + " bytes is too small to cache in place: it needs at least "
                        + BackingFingerprint.DEVICE_BYTES_MIN + " bytes";
            }
            if (!spec.inPlace() && Geometry.volumeBytes(spec.device().sizeBytes(), spec.logSizeBytes()) < 4096) {
                return "backing device \"" + spec.name() + "\" of " + spec.device().sizeBytes()
                        + " bytes is too small: it needs more than its 1 MiB header"
                        + (spec.logSizeBytes() > 0 ? " and its " + (spec.logSizeBytes() >> 20) + " MiB backing log"
                        : "");
            }
            if (Geometry.volumeBytes(spec.device().sizeBytes()) / 512 > ExtentIndex.SECTOR_LIMIT) {
                return "backing device \"" + spec.name() + "\" of " + spec.device().sizeBytes()
                        + " bytes is too large: a volume is at most 2^47 sectors (64 PiB, the extent index's limit)";
            }
        }
        return null;
    }

    static UUID uuid(Prng ids) {
        long most = (ids.nextLong() & ~0xF000L) | 0x4000L; // version 4 (random)
        long least = (ids.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L; // IETF variant
        return new UUID(most, least);
    }

    private void run(Consumer<Outcome<Void>> done) {
        byte[] twoBlocks = new byte[2 * CacheSuperblock.BYTES];
        DeviceBytes.writeAndFlush(cacheDevice, 0, twoBlocks, step(done, "invalidating the old superblocks",
                () -> clearRing(0, done)));
    }

    private void clearRing(long doneBytes, Consumer<Outcome<Void>> done) {
        long ringBytes = (long) superblock.journalBuckets() * superblock.bucketSizeBytes();
        progress.accept((double) doneBytes / ringBytes);
        if (doneBytes == ringBytes) {
            cacheDevice.flush(step(done, "flushing the cleared journal", () -> writeHeader(0, done)));
            return;
        }
        int chunk = (int) Math.min(zeroes.length, ringBytes - doneBytes);
        byte[] bytes = chunk == zeroes.length ? zeroes : new byte[chunk];
        long offset = superblock.bucketOffsetBytes(superblock.journalFirstBucket()) + doneBytes;
        DeviceBytes.write(cacheDevice, offset, bytes, false, step(done, "clearing the journal",
                () -> clearRing(doneBytes + chunk, done)));
    }

    private void writeHeader(int index, Consumer<Outcome<Void>> done) {
        if (index == headers.size()) {
            writeSuperblocks(done);
            return;
        }
        BackingHeader header = headers.get(index);
        if (header == null) {
            writeHeader(index + 1, done); // cached in place: nothing of ours goes on the device
            return;
        }
        BackingHeaderWrite.write(backings.get(index), header, headerAndEmptyMap(header), failure -> {
            if (failure != null) {
                done.accept(Outcome.failed("format: " + failure));
                return;
            }
            writeHeader(index + 1, done);
        });
    }

    /**
     * The header and, behind it, an empty damage map (FORMAT.md §4.1): copy A of every block valid with sequence 1,
     * copy B zero, so that {@code check --damage} reads a valid, empty map before the first open.
     */
    static byte[] headerAndEmptyMap(BackingHeader header) {
        DamageMapGeometry geometry = DamageMapGeometry.of(header.dataOffsetBytes(), header.volumeSizeBytes());
        int mapBytes = geometry == null ? 0 : geometry.areaBytes();
        byte[] bytes = new byte[BackingHeader.BYTES + mapBytes];
        System.arraycopy(header.encode(), 0, bytes, 0, BackingHeader.BYTES);
        for (int b = 0; geometry != null && b < geometry.blockCount(); b++) {
            byte[] block = new DamageMapBlock(1, header.backingUuid(), geometry.regionBytes(), b,
                    geometry.blockCount(), 0, 0, new long[DamageMapBlock.WORDS]).encode();
            System.arraycopy(block, 0, bytes, (int) geometry.copyOffsetBytes(b, 0), DamageMapBlock.BYTES);
        }
        return bytes;
    }

    private void writeSuperblocks(Consumer<Outcome<Void>> done) {
        byte[] encoded = superblock.encode();
        DeviceBytes.writeAndFlush(cacheDevice, 0, encoded, step(done, "writing superblock copy A",
                () -> DeviceBytes.writeAndFlush(cacheDevice, CacheSuperblock.BYTES, encoded, step(done,
                        "writing superblock copy B", () -> {
                            progress.accept(1.0);
                            done.accept(Outcome.ok(null));
                        }))));
    }

    private static IoCallback step(Consumer<Outcome<Void>> done, String what, Runnable next) {
        return result -> {
            if (result.ok()) {
                next.run();
            } else {
                done.accept(Outcome.failed("format: " + what + " failed: " + result.message()));
            }
        };
    }
}
