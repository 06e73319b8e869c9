package io.blockcache.cli;

import io.blockcache.format.AttachedBacking;
import io.blockcache.format.BackingHeader;
import io.blockcache.format.BackingLogCommit;
import io.blockcache.format.CacheSuperblock;
import io.blockcache.format.DecodeResult;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where {@code blockcache salvage} puts what it recovered: one sparse, volume-sized image file per volume in a
 * directory ({@link #images}), or the volumes' own backing files at their data offset ({@link #backings}). Blocking
 * file I/O; CLI thread only.
 */
final class SalvageSink implements AutoCloseable {
    /** Refused before anything was written: the message says why. */
    static final class Refused extends Exception {
        Refused(String message) {
            super(message);
        }
    }

    /** An open target: the file, where volume byte 0 lies in it, and the lock held on it. */
    private record Target(FileChannel channel, long dataOffsetBytes, FileLock lock) {
    }

    private final Map<Integer, Target> targets = new LinkedHashMap<>();

    private SalvageSink() {
    }

    /** Creates {@code dir}/NAME.img for every volume, sized as the volume and sparse. */
    static SalvageSink images(Path dir, CacheSuperblock superblock) throws IOException {
        Files.createDirectories(dir);
        SalvageSink sink = new SalvageSink();
        try {
            for (AttachedBacking backing : superblock.backings()) {
                FileChannel channel = FileChannel.open(dir.resolve(imageName(backing)), StandardOpenOption.CREATE,
                        StandardOpenOption.WRITE, StandardOpenOption.READ, StandardOpenOption.TRUNCATE_EXISTING);
                sink.targets.put(backing.volumeId(), new Target(channel, 0, null));
                // Sparse: the size without writing a byte, so unrecovered ranges read as zeros and take no space.
                channel.write(ByteBuffer.allocate(1), backing.volumeSizeBytes() - 1);
            }
        } catch (IOException e) {
            sink.close();
            throw e;
        }
        return sink;
    }

    /** The image file name of a volume: its export name, or volume-ID when it has none. */
    static String imageName(AttachedBacking backing) {
        String name = backing.exportName().isEmpty() ? "volume-" + backing.volumeId() : backing.exportName();
        return name.replace('/', '_') + ".img";
    }

    /**
     * Opens the named backing files for writing, after checking each is the device its slot names (backing header:
     * same backing and cache set, same geometry; in place: same size), holds no committed backing-log group (its
     * replay would later overwrite what salvage wrote), and no other process has it open.
     *
     * @throws Refused naming the file and the reason; nothing was written
     */
    static SalvageSink backings(Map<String, Path> files, CacheSuperblock superblock) throws IOException, Refused {
        SalvageSink sink = new SalvageSink();
        try {
            for (Map.Entry<String, Path> file : files.entrySet()) {
                AttachedBacking backing = superblock.backings().stream()
                        .filter(slot -> slot.exportName().equals(file.getKey())).findFirst()
                        .orElseThrow(() -> new Refused("the cache has no volume named \"" + file.getKey() + "\""));
                sink.targets.put(backing.volumeId(), open(file.getValue(), backing, superblock));
            }
        } catch (IOException | Refused e) {
            sink.close();
            throw e;
        }
        return sink;
    }

    private static Target open(Path file, AttachedBacking backing, CacheSuperblock superblock)
            throws IOException, Refused {
        List<Long> holders = FileHolders.of(file, ProcessHandle.current().pid());
        if (!holders.isEmpty()) {
            throw new Refused(file + " is open in process " + holders + ": stop serve (or whatever uses it) first");
        }
        FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
        FileLock lock = channel.tryLock();
        if (lock == null) {
            channel.close();
            throw new Refused(file + " is locked by another process");
        }
        try {
            if (backing.inPlace()) {
                if (channel.size() != backing.volumeSizeBytes()) {
                    throw new Refused(file + " is " + channel.size() + " bytes, but volume \"" + backing.exportName()
                            + "\" (cached in place) is " + backing.volumeSizeBytes());
                }
                return new Target(channel, 0, lock);
            }
            byte[] bytes = readFully(channel, 0, BackingHeader.BYTES);
            DecodeResult<BackingHeader> header = BackingHeader.decode(bytes, 0);
            if (!header.isOk()) {
                throw new Refused(file + " holds no valid backing header: " + header.error());
            }
            BackingHeader found = header.value();
            if (!found.backingUuid().equals(backing.backingUuid()) || !found.cacheSetUuid()
                    .equals(superblock.cacheSetUuid()) || found.dataOffsetBytes() != backing.dataOffsetBytes()
                    || found.volumeSizeBytes() != backing.volumeSizeBytes()) {
                throw new Refused(file + " is not the backing device of volume \"" + backing.exportName()
                        + "\": its header says backing " + found.backingUuid() + " of cache set "
                        + found.cacheSetUuid() + ", the cache's slot says " + backing.backingUuid() + " of "
                        + superblock.cacheSetUuid());
            }
            if (found.hasLog()) {
                byte[] commit = readFully(channel, BackingHeader.LOG_OFFSET_BYTES, BackingLogCommit.BYTES);
                DecodeResult<BackingLogCommit> decoded = BackingLogCommit.decode(commit, 0);
                if (decoded.isOk() && decoded.value().backingUuid().equals(found.backingUuid())) {
                    throw new Refused(file + " holds a committed backing-log group: run `blockcache replay-log`"
                            + " on it first, or its replay would overwrite what salvage writes");
                }
            }
            return new Target(channel, found.dataOffsetBytes(), lock);
        } catch (IOException | Refused e) {
            channel.close();
            throw e;
        }
    }

    /** True if this sink writes volume {@code volumeId}. */
    boolean writes(int volumeId) {
        return targets.containsKey(volumeId);
    }

    /** Writes {@code data[from, from + lengthBytes)} at volume sector {@code startSector}. */
    void write(int volumeId, long startSector, byte[] data, int from, int lengthBytes) throws IOException {
        Target target = targets.get(volumeId);
        ByteBuffer buffer = ByteBuffer.wrap(data, from, lengthBytes);
        long position = target.dataOffsetBytes() + startSector * 512;
        while (buffer.hasRemaining()) {
            position += target.channel().write(buffer, position);
        }
    }

    /** Makes everything written durable (fsync). */
    void force() throws IOException {
        for (Target target : targets.values()) {
            target.channel().force(true);
        }
    }

    static byte[] readFully(FileChannel channel, long positionBytes, int lengthBytes) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(lengthBytes);
        while (buffer.hasRemaining()) {
            if (channel.read(buffer, positionBytes + buffer.position()) < 0) {
                throw new IOException("short read at byte " + (positionBytes + buffer.position()) + ": the file"
                        + " ends at " + channel.size());
            }
        }
        return buffer.array();
    }

    @Override
    public void close() throws IOException {
        IOException first = null;
        for (Target target : targets.values()) {
            try {
                target.channel().close(); // releases the lock too
            } catch (IOException e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        targets.clear();
        if (first != null) {
            throw first;
        }
    }
}
