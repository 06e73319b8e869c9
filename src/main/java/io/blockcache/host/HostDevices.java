package io.blockcache.host;

import io.blockcache.backing.BackingLocation;
import io.blockcache.backing.NbdDevice;
import io.blockcache.backing.NbdUri;
import io.blockcache.backing.S3Backing;
import io.blockcache.backing.S3Device;
import io.blockcache.backing.S3Options;
import io.blockcache.device.BlockDevice;
import io.blockcache.device.FileDevice;
import io.blockcache.device.FileInUseException;
import io.blockcache.device.IoMessages;
import io.blockcache.device.FileDeviceOptions;
import io.blockcache.device.IoResult;
import io.blockcache.engine.BackingSpec;
import io.blockcache.engine.CacheSet;
import io.blockcache.format.BackingHeader;
import io.blockcache.format.ExistingMetadata;
import io.blockcache.log.EventName;
import io.blockcache.log.EventSink;
import io.blockcache.log.LogEvent;
import io.blockcache.loop.RealLoop;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Opens the devices of a {@link CacheHost}: the backing stores (files, {@code nbd://} exports, {@code s3://} volumes),
 * their damage map files, and the cache file, each checked before anything is created or written ({@link
 * MetadataGuard}), so that a refused start leaves the stores as it found them.
 *
 * <p>Thread rule: a thread other than the loop's (it waits for the loop); once, at the host's open.
 */
final class HostDevices {
    private final HostFiles files;
    private final RealLoop loop;
    private final EventSink log;

    HostDevices(HostFiles files, RealLoop loop, EventSink log) {
        this.files = files;
        this.loop = loop;
        this.log = log;
    }

    /**
     * Opens the backing stores first, then the cache file, which goes first in {@code devices}. With a new cache,
     * existing backing files are checked first, NBD stores opened next (an open writes nothing), then S3 volumes (an
     * open may create the volume and takes its owner record), so that a refusal (an unreachable server, a store too
     * small, one that holds blockcache metadata: {@link MetadataGuard}, one another cache owns) comes before any file
     * is created and, as far as can be, before anything is written. What a new cache's S3 opens wrote before a later
     * refusal is taken back ({@link S3Backing#withdraw}).
     */
    void open(boolean fresh, List<BlockDevice> devices, List<BackingSpec> backings) throws HostException {
        // 512-byte logical blocks: the volume passes sector-aligned requests straight down to both devices.
        FileDeviceOptions deviceOptions = FileDeviceOptions.DEFAULTS.withLogicalBlockBytes(BlockDevice.SECTOR_BYTES);
        MetadataGuard guard = new MetadataGuard(files.cacheFile(), files.force());
        List<Map.Entry<String, BackingLocation>> all = List.copyOf(files.backings().entrySet());
        BlockDevice[] opened = new BlockDevice[all.size()];
        List<BlockDevice> backingDevices = new ArrayList<>();
        if (fresh) {
            refuseUnfitSizes(all);
        }
        boolean opening = true;
        FileDevice cache = null;
        try {
            if (!fresh) {
                // The cache file first: its lock (device.FileLocks) refuses a second process on this cache before
                // any backing store is touched — an S3 open renews the owner record, a second cache's would be a lie.
                cache = openOrCreate(files.cacheFile(), files.cacheSizeBytes(), false, deviceOptions);
            }
            for (Map.Entry<String, BackingLocation> backing : all) {
                if (fresh && backing.getValue() instanceof BackingLocation.File file && Files.exists(file.path())) {
                    guard.checkFile(backing.getKey(), file.path());
                }
            }
            for (int i = 0; i < all.size(); i++) {
                if (all.get(i).getValue() instanceof BackingLocation.Nbd nbd) {
                    opened[i] = openBackingNbd(all.get(i).getKey(), nbd, fresh, guard);
                    backingDevices.add(opened[i]);
                }
            }
            for (int i = 0; i < all.size(); i++) {
                if (all.get(i).getValue() instanceof BackingLocation.S3 s3) {
                    opened[i] = openBackingS3(all.get(i).getKey(), s3, fresh, guard);
                    backingDevices.add(opened[i]);
                }
            }
            for (int i = 0; i < all.size(); i++) {
                if (all.get(i).getValue() instanceof BackingLocation.File file) {
                    opened[i] = openBackingFile(all.get(i).getKey(), file.path(), fresh, deviceOptions);
                    backingDevices.add(opened[i]);
                }
            }
            for (int i = 0; i < all.size(); i++) {
                BlockDevice map = openMapFile(all.get(i).getKey(), deviceOptions);
                if (map != null) {
                    backingDevices.add(map);
                }
                backings.add(new BackingSpec(all.get(i).getKey(), opened[i]).withMapDevice(map));
            }
            if (cache == null) {
                cache = openOrCreate(files.cacheFile(), files.cacheSizeBytes(), true, deviceOptions);
            }
            devices.add(cache);
            opening = false;
        } catch (IOException e) {
            throw new HostException(e instanceof FileInUseException ? e.getMessage()
                    : "cannot open " + IoMessages.describe("a device file", e));
        } catch (UnsupportedOperationException e) {
            throw new HostException("cannot open the device files: " + e.getMessage());
        } finally {
            if (opening && cache != null) {
                backingDevices.add(cache); // closed by close() with the others
            }
            if (opening && fresh) {
                withdrawS3(backingDevices);
            }
            devices.addAll(backingDevices); // closed by close(), whatever happened
        }
    }

    /**
     * Opens the backing store of a volume added to the running cache ({@code blockcache volume add}): a file (created
     * sparse with {@code volumeBytes} plus the header when it does not exist), an {@code nbd://} export or an {@code
     * s3://} volume (created with {@code volumeBytes} plus the header when the prefix holds none; its owner record
     * taken as at a start), and its damage map file. A store holding blockcache metadata is refused unless it names
     * this cache set (a volume detached from it, or an add a crash interrupted: its data keeps its place) or {@code
     * force}. Whatever it opened goes to {@code opened}, whatever it created to {@code created}, so a refused add can
     * close and delete them. With {@code logBytes} (whole MiB) the spec asks for a backing log of that size, and a
     * store created here is that much larger.
     */
    BackingSpec openAdded(String name, BackingLocation location, Added added, boolean force, UUID cacheSetUuid,
                          List<BlockDevice> opened, List<Path> created) throws HostException {
        long volumeBytes = added.volumeBytes();
        long logBytes = added.logBytes();
        boolean inPlace = added.inPlace();
        if (logBytes < 0 || logBytes % BackingHeader.LOG_SIZE_UNIT_BYTES != 0 || inPlace && logBytes > 0) {
            throw new HostException("the backing log of volume \"" + name + "\" must be a whole number of MiB (e.g."
                    + " 64M), got " + logBytes + " bytes" + (inPlace ? "; cached in place, a store has none" : ""));
        }
        // A store created here holds the volume, its header and its log (as format --backing-log makes one); cached
        // in place, only the volume.
        long headerBytes = inPlace ? 0 : BackingHeader.DEFAULT_DATA_OFFSET_BYTES + logBytes;
        long createdBytes = volumeBytes + headerBytes;
        FileDeviceOptions deviceOptions = FileDeviceOptions.DEFAULTS.withLogicalBlockBytes(BlockDevice.SECTOR_BYTES);
        BlockDevice device;
        location = files.remote().applyTo(location); // the endpoint, take-over and timeouts serve was started with
        try {
            if (location instanceof BackingLocation.File file) {
                boolean exists = Files.exists(file.path());
                if (exists && !force) {
                    refuseForeign(name, file.path().toString(), MetadataGuard.head(file.path()), cacheSetUuid,
                            inPlace);
                }
                if (!exists && volumeBytes <= 0) {
                    throw new HostException("backing file " + file.path() + " of volume \"" + name + "\" does not"
                            + " exist; give its size (--size) to create it");
                }
                if (!exists) {
                    created.add(file.path());
                }
                FileDevice fileDevice = openOrCreate(file.path(), createdBytes, !exists, deviceOptions);
                opened.add(fileDevice);
                fileDevice.fenceWhenChanged();
                device = fileDevice;
            } else if (location instanceof BackingLocation.Nbd nbd) {
                device = openBackingNbd(name, nbd, false, new MetadataGuard(files.cacheFile(), true));
                opened.add(device);
                if (!force) {
                    ByteBuffer head = ByteBuffer.allocate(ExistingMetadata.HEAD_BYTES);
                    IoResult read = CacheHost.<IoResult>onLoop(loop, done -> device.read(0, head, done::accept));
                    if (!read.ok()) {
                        throw new HostException("cannot read " + nbd.display() + ": " + read.message());
                    }
                    refuseForeign(name, nbd.display(), head.array(), cacheSetUuid, inPlace);
                }
            } else if (location instanceof BackingLocation.S3 s3) {
                // As a start with a new cache opens it (owner record, the volume created when missing), but the
                // size is the add's and a store this cache set's header names is taken again.
                S3Backing.Create create = volumeBytes <= 0 ? S3Backing.Create.NEVER : new S3Backing.Create(
                        createdBytes, randomUuid(), headerBytes);
                device = openS3(name, s3, create, force ? S3Backing.AttachGuard.NONE
                        : addGuard(name, s3.display(), cacheSetUuid, inPlace));
                opened.add(device);
            } else {
                throw new HostException("volume \"" + name + "\": " + location.display() + " is no kind of store"
                        + " this build can add");
            }
            Path mapPath = files.dataDir() == null ? null : files.dataDir().resolve(DamageMapPlacement.fileName(name));
            if (!inPlace && mapPath != null && files.damageMap() == DamageMapPlacement.FILE && !Files.exists(mapPath)) {
                created.add(mapPath);
            }
            if (inPlace) {
                return new BackingSpec(name, device, true, null); // no map: nothing of the cache is on the store
            }
            FileDevice map = openMapFile(name, deviceOptions);
            if (map != null) {
                opened.add(map);
            }
            return new BackingSpec(name, device).withMapDevice(map).withLogSizeBytes(logBytes);
        } catch (IOException e) {
            throw new HostException(e instanceof FileInUseException ? e.getMessage()
                    : "cannot open " + IoMessages.describe("a device file", e));
        }
    }

    /**
     * What a live add asks for, besides the store.
     *
     * @param volumeBytes the volume's size for a store that does not exist yet (then created), else 0
     * @param logBytes the backing log after the header, a whole number of MiB; 0 for none
     * @param inPlace cache the store in place: nothing of the cache written on it (docs/FORMAT.md §4.2)
     */
    record Added(long volumeBytes, long logBytes, boolean inPlace) {
    }

    /** Where volume {@code name}'s damage map file is with placement {@code file}, or null without one. */
    Path mapFile(String name) {
        return files.dataDir() == null || files.damageMap() != DamageMapPlacement.FILE ? null
                : files.dataDir().resolve(DamageMapPlacement.fileName(name));
    }

    /**
     * Refuses a store whose first bytes hold blockcache metadata of anything but this cache set's backing header (any
     * metadata, {@code inPlace}: the volume would start with it).
     */
    private void refuseForeign(String name, String display, byte[] head, UUID cacheSetUuid, boolean inPlace)
            throws HostException {
        String refusal = foreignRefusal(name, display, head, cacheSetUuid, inPlace);
        if (refusal != null) {
            throw new HostException(refusal);
        }
    }

    /** {@link #refuseForeign} for an S3 volume, asked before its owner record is taken (a refusal writes nothing). */
    private S3Backing.AttachGuard addGuard(String name, String display, UUID cacheSetUuid, boolean inPlace) {
        return new S3Backing.AttachGuard() {
            @Override
            public int headBytes() {
                return ExistingMetadata.HEAD_BYTES;
            }

            @Override
            public String refusal(byte[] head, boolean takingOver) {
                return foreignRefusal(name, display, head, cacheSetUuid, inPlace);
            }
        };
    }

    /** The refusal of a store whose head holds metadata other than this cache set's backing header, or null. */
    private String foreignRefusal(String name, String display, byte[] head, UUID cacheSetUuid, boolean inPlace) {
        String contents = ExistingMetadata.describe(head);
        if (contents == null) {
            return null;
        }
        var header = BackingHeader.decode(java.util.Arrays.copyOf(head, BackingHeader.BYTES), 0);
        if (!inPlace && header.isOk() && header.value().cacheSetUuid().equals(cacheSetUuid)) {
            log.log(LogEvent.of(EventName.HOST_VOLUME_ATTACHED, "volume \"" + name + "\": " + display + " was a volume"
                    + " of this cache before; attaching it again with its data where it was").with("volume", name)
                    .with("backing", display));
            return null;
        }
        if (inPlace) {
            return "refusing to cache " + display + " in place as volume \"" + name + "\": it " + contents + ", which"
                    + " the volume would start with (a store of blockcache is added with its header, not in place);"
                    + " give --force to cache it in place as it is";
        }
        return "refusing to add " + display + " as volume \"" + name + "\": it " + contents
                + ", which the add would overwrite (that cache set's dirty data would never be written back);"
                + " give --force to overwrite it";
    }

    /**
     * Takes back the volume objects and owner records that a new cache's S3 opens wrote, for a start refused before
     * anything was written through them; a failure to do so is one line in the log (the objects remain, and say so).
     */
    void withdrawS3(List<BlockDevice> backingDevices) {
        for (BlockDevice device : backingDevices) {
            if (device instanceof S3Device s3) {
                try {
                    S3Backing.withdraw(s3);
                } catch (IOException e) {
                    log.log(EventName.HOST_UNDO_FAILED, "could not take back what the refused start wrote to an S3"
                            + " volume: " + e.getMessage());
                }
            }
        }
    }

    /**
     * The damage map file of export {@code name} with placement {@code file} (created sparse, the size of the default
     * header area, docs/WRITEBACK.md "Where the map lives"); null otherwise. With placement {@code backing} a map file
     * left from before is deleted: it would no longer be kept, and {@code check --damage} must not trust it.
     */
    private FileDevice openMapFile(String name, FileDeviceOptions options) throws IOException {
        if (files.dataDir() == null) {
            return null;
        }
        Path path = files.dataDir().resolve(DamageMapPlacement.fileName(name));
        if (files.damageMap() != DamageMapPlacement.FILE) {
            if (Files.deleteIfExists(path)) {
                log.log(LogEvent.of(EventName.HOST_DAMAGE_MAP_DELETED, "deleted the damage map file " + path
                        + ": damage-map is " + files.damageMap().text() + " now").with("path", path.toString()));
            }
            return null;
        }
        return openOrCreate(path, BackingHeader.DEFAULT_DATA_OFFSET_BYTES, !Files.exists(path), options);
    }

    private FileDevice openBackingFile(String name, Path path, boolean fresh, FileDeviceOptions options)
            throws IOException, HostException {
        boolean exists = Files.exists(path);
        if (!fresh && !exists) {
            throw new HostException("backing file " + path + " of export \"" + name + "\" is missing, but the cache "
                    + files.cacheFile() + " exists and may hold its dirty data; refusing to attach an empty file."
                    + " Restore the file or give its path with --backing " + name + "=FILE.");
        }
        // --backing-size is the export's size: the new file is that plus the backing header in front of it.
        FileDevice device = openOrCreate(path, createdBackingBytes(), !exists, options);
        if (fresh && exists) { // said once it is open: a file in use by another cache is refused without this line
            log.log(LogEvent.of(EventName.HOST_VOLUME_ATTACHED, "attaching the existing file " + path + " as export \""
                    + name + "\"; its first 1 MiB becomes the blockcache backing header").with("volume", name)
                    .with("backing", path.toString()));
        }
        // Deleted, replaced or truncated under us, a backing file must take no more writes: they would be lost at the
        // stop, and a flush that succeeded would let writeback mark dirty data clean (DeviceWatcher).
        device.fenceWhenChanged();
        return device;
    }

    private NbdDevice openBackingNbd(String name, BackingLocation.Nbd location, boolean fresh, MetadataGuard guard)
            throws HostException {
        NbdUri uri = location.uri();
        NbdDevice device;
        try {
            device = NbdDevice.open(loop, uri, NbdDevice.CONNECTIONS_DEFAULT, location.requestTimeoutNs());
        } catch (IOException e) {
            throw new HostException("cannot open the backing store of export \"" + name + "\": " + e.getMessage());
        }
        if (fresh) {
            refuseIfTooSmall(name, uri.toString(), device);
            refuseIfMetadata(name, uri.toString(), device, guard);
            log.log(LogEvent.of(EventName.HOST_VOLUME_ATTACHED, "attaching " + uri + " as export \"" + name + "\" ("
                    + device.sizeBytes() + " bytes, " + device.connections() + " connections); its first 1 MiB"
                    + " becomes the blockcache backing header").with("volume", name).with("backing", uri.toString()));
        }
        return device;
    }

    /**
     * Opens an S3 volume, owned by this cache (host and cache file); with a new cache a missing volume is created
     * with the backing size, as a missing backing file is.
     */
    private S3Device openBackingS3(String name, BackingLocation.S3 location, boolean fresh, MetadataGuard guard)
            throws HostException {
        S3Backing.Create create = fresh ? new S3Backing.Create(createdBackingBytes(), randomUuid(),
                BackingHeader.DEFAULT_DATA_OFFSET_BYTES) : S3Backing.Create.NEVER;
        S3Device device = openS3(name, location, create,
                fresh ? guard.s3(name, location.display()) : S3Backing.AttachGuard.NONE);
        if (fresh) {
            if (device.sizeBytes() <= BackingHeader.DEFAULT_DATA_OFFSET_BYTES) {
                withdrawS3(List.of(device)); // refused just below: take back the owner record it took
            }
            refuseIfTooSmall(name, location.display(), device);
            log.log(LogEvent.of(EventName.HOST_VOLUME_ATTACHED, "attaching " + location.display() + " as export \""
                    + name + "\" (" + device.sizeBytes() + " bytes in chunks of " + device.writeUnitBytes()
                    + " bytes); its first 1 MiB becomes the blockcache backing header").with("volume", name)
                    .with("backing", location.display()));
        }
        return device;
    }

    /**
     * Opens an S3 volume owned by this cache (host and cache file), as {@code create} and {@code guard} say: the one
     * way a start and a live add open one.
     */
    private S3Device openS3(String name, BackingLocation.S3 location, S3Backing.Create create,
                            S3Backing.AttachGuard guard) throws HostException {
        S3Options options = location.options().withOwnerId(S3Options.ownerIdFor(files.cacheFile()));
        try {
            return S3Backing.open(loop, location.uri(), options, create, guard, InstantSource.system(), log);
        } catch (IOException e) {
            throw new HostException("cannot open the backing store of export \"" + name + "\": " + e.getMessage());
        }
    }

    /** Closes {@code device} and refuses it when its first bytes hold blockcache metadata (unless forced). */
    private void refuseIfMetadata(String name, String display, BlockDevice device, MetadataGuard guard)
            throws HostException {
        ByteBuffer head = ByteBuffer.allocate((int) Math.min(ExistingMetadata.HEAD_BYTES, device.sizeBytes()));
        IoResult read = CacheHost.<IoResult>onLoop(loop, done -> device.read(0, head, done::accept));
        try {
            if (!read.ok()) {
                throw new HostException("cannot read the backing store of export \"" + name + "\", " + display + ": "
                        + read.message());
            }
            guard.checkHead(name, display, head.array());
        } catch (HostException refused) {
            closeRefused(device);
            throw refused;
        }
    }

    /** Closes {@code device} and refuses it when it has no room for data after the backing header. */
    private void refuseIfTooSmall(String name, String display, BlockDevice device) throws HostException {
        if (device.sizeBytes() > BackingHeader.DEFAULT_DATA_OFFSET_BYTES) {
            return;
        }
        closeRefused(device);
        throw new HostException("the backing store of export \"" + name + "\", " + display + ", has "
                + device.sizeBytes() + " bytes: too small, it needs more than its "
                + BackingHeader.DEFAULT_DATA_OFFSET_BYTES + "-byte header");
    }

    private void closeRefused(BlockDevice device) throws HostException {
        CacheHost.<Boolean>onLoop(loop, done -> {
            device.close();
            done.accept(true);
        });
    }

    /**
     * Refuses a new cache that could not be formatted, or new backing files with no room for data, before any file is
     * created: found only at format time, the refusal left an 8 GiB backing file and a half-made cache behind, which
     * the next start then refused.
     */
    private void refuseUnfitSizes(List<Map.Entry<String, BackingLocation>> all) throws HostException {
        String cacheProblem = CacheSet.cacheGeometryProblem(files.cacheSizeBytes(), files.options());
        if (cacheProblem != null) {
            throw new HostException("cannot create the cache " + files.cacheFile() + ": " + cacheProblem
                    + "; nothing was created");
        }
        for (Map.Entry<String, BackingLocation> backing : all) {
            if (backing.getValue() instanceof BackingLocation.File file && !Files.exists(file.path())
                    && files.backingSizeBytes() < BlockDevice.SECTOR_BYTES * 8) {
                throw new HostException("cannot create the backing file " + file.path() + " of export \""
                        + backing.getKey() + "\" with an export of " + files.backingSizeBytes() + " bytes: an export"
                        + " needs at least 4 KiB; nothing was created");
            }
        }
    }

    /**
     * The size of a backing store this host creates: the export's size ({@code --backing-size}) plus the backing
     * header. Stores created before 2026-12-07 had the export size itself, so their exports are 1 MiB smaller than
     * asked; they keep that size (docs/OPERATIONS.md "Sizes").
     */
    private long createdBackingBytes() {
        return files.backingSizeBytes() + BackingHeader.DEFAULT_DATA_OFFSET_BYTES;
    }

    private static UUID randomUuid() {
        SecureRandom random = new SecureRandom();
        return new UUID(random.nextLong(), random.nextLong());
    }

    private FileDevice openOrCreate(Path path, long sizeBytes, boolean create, FileDeviceOptions options)
            throws IOException {
        if (!create) {
            return FileDevice.open(loop, path, options);
        }
        Path parent = path.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        log.log(LogEvent.of(EventName.HOST_FILE_CREATED, "creating " + path + " (" + size(sizeBytes) + ", sparse)")
                .with("path", path.toString()).with("bytes", sizeBytes));
        return FileDevice.create(loop, path, sizeBytes, options);
    }

    private static String size(long bytes) {
        return bytes % (1L << 30) == 0 ? (bytes >> 30) + " GiB"
                : bytes % (1L << 20) == 0 ? (bytes >> 20) + " MiB" : bytes + " bytes";
    }
}
