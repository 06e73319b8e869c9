package io.blockcache.host;

import io.blockcache.backing.BackingLocation;
import io.blockcache.device.FileSpace;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The {@link FileSpace} of every local file a host runs on: the cache file and each backing file (NBD and S3
 * backings have no local file), and the warnings they call for.
 *
 * <p>Thread rule: any thread but the loop's (it does blocking file I/O).
 */
public final class FileSpaces {
    private FileSpaces() {
    }

    /** Measures the files of {@code files} now; a file that cannot be measured (gone, unreadable) is all unknown. */
    public static List<FileSpace> measure(HostFiles files) {
        List<FileSpace> spaces = new ArrayList<>();
        add(spaces, "cache", files.cacheFile());
        for (Map.Entry<String, BackingLocation> backing : files.backings().entrySet()) {
            if (backing.getValue() instanceof BackingLocation.File file) {
                add(spaces, "backing " + backing.getKey(), file.path());
            }
        }
        return spaces;
    }

    private static void add(List<FileSpace> spaces, String label, java.nio.file.Path path) {
        try {
            spaces.add(FileSpace.measure(label, path));
        } catch (IOException e) {
            // All unknown: a file that vanished or cannot be read is the device's error to report, not this one's.
            spaces.add(new FileSpace(label, path, FileSpace.UNKNOWN, FileSpace.UNKNOWN, FileSpace.UNKNOWN));
        }
    }

    /** One line per file whose holes exceed the free space of its file system: what, how much, what to do. */
    public static List<String> warnings(List<FileSpace> spaces) {
        List<String> lines = new ArrayList<>();
        for (FileSpace space : spaces) {
            if (space.sparseBeyondFreeBytes() > 0) {
                lines.add(String.format("warning: the %s file %s is sparse: %d MiB of its %d MiB are not allocated"
                                + " but its file system has %d MiB free, so writes may fail with ENOSPC (EIO to"
                                + " clients); free space there or allocate the file in full (docs/OPERATIONS.md"
                                + " \"Disk full\")", space.label(), space.path(), mib(space.sparseBytes()),
                        mib(space.sizeBytes()), mib(space.usableBytes())));
            }
        }
        return lines;
    }

    private static long mib(long bytes) {
        return bytes >> 20;
    }
}
