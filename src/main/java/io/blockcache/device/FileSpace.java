package io.blockcache.device;

import com.sun.jna.Library;
import com.sun.jna.Native;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How much a sparse file may still grow into its file system: its size, the bytes allocated to it, and the space
 * its file system has free. A sparse cache or backing file whose unallocated bytes exceed the free space will get
 * ENOSPC on some write to a hole (found 2026-12-07: a 128 MiB cache file and a 256 MiB backing file on a 64 MiB
 * tmpfs).
 *
 * <p>Allocated bytes come from walking the file's data extents with {@code lseek(SEEK_DATA / SEEK_HOLE)} through
 * JNA: the JDK reports no {@code st_blocks}. Where that is not possible (not Linux, no JNA native library, a file
 * system without SEEK_DATA) the allocation is unknown ({@link #UNKNOWN}) and nothing is said about it.
 *
 * <p>Thread rule: any thread but a loop's (measuring does blocking file I/O).
 *
 * @param label what the file is, for messages and metrics ("cache", "backing NAME")
 * @param path the file
 * @param sizeBytes the file's size
 * @param allocatedBytes bytes of the file backed by blocks, or {@link #UNKNOWN}
 * @param usableBytes bytes this process may still allocate on the file's file system
 */
public record FileSpace(String label, Path path, long sizeBytes, long allocatedBytes, long usableBytes) {
    /** The allocation could not be measured. */
    public static final long UNKNOWN = -1;
    /** Data extents walked at most per file: far beyond a real cache file's, so the walk is bounded. */
    static final int EXTENTS_MAX = 1_000_000;
    private static final int O_RDONLY = 0;
    private static final int SEEK_DATA = 3; // Linux <unistd.h>
    private static final int SEEK_HOLE = 4;
    private static final int ENXIO = 6; // Linux <errno.h>: SEEK_DATA found no data after the offset

    /** The C library calls used; loaded on first use. */
    private interface LibC extends Library {
        int open(String path, int flags);

        long lseek(int fd, long offset, int whence);

        int close(int fd);
    }

    /** Holds the library; a failure to load it is remembered as null. */
    private static final class Native0 {
        static final LibC LIBC = load();

        private static LibC load() {
            try {
                return Native.load("c", LibC.class);
            } catch (UnsatisfiedLinkError | RuntimeException e) {
                return null; // no native access here: allocation stays unknown, as documented
            }
        }
    }

    /** Measures {@code path} now. */
    public static FileSpace measure(String label, Path path) throws IOException {
        long size = Files.size(path);
        long usable = Files.getFileStore(path).getUsableSpace();
        return new FileSpace(label, path, size, allocatedBytes(path, size), usable);
    }

    /** Bytes of the file not backed by blocks yet (holes), or {@link #UNKNOWN}. */
    public long sparseBytes() {
        return allocatedBytes == UNKNOWN ? UNKNOWN : Math.max(0, sizeBytes - allocatedBytes);
    }

    /**
     * Bytes of holes beyond the free space of the file system: how much of the file could never be written if
     * nothing else frees space (0 when it all fits, {@link #UNKNOWN} when the allocation is unknown).
     */
    public long sparseBeyondFreeBytes() {
        return allocatedBytes == UNKNOWN ? UNKNOWN : Math.max(0, sparseBytes() - usableBytes);
    }

    private static long allocatedBytes(Path path, long sizeBytes) {
        LibC libc = Native0.LIBC;
        if (libc == null) {
            return UNKNOWN;
        }
        int fd = libc.open(path.toString(), O_RDONLY);
        if (fd < 0) {
            return UNKNOWN;
        }
        try {
            long allocated = 0;
            long position = 0;
            for (int extent = 0; extent < EXTENTS_MAX && position < sizeBytes; extent++) {
                long data = libc.lseek(fd, position, SEEK_DATA);
                if (data < 0) {
                    // ENXIO: no data after position (the rest is a hole); EINVAL: SEEK_DATA not supported, and
                    // then the first call fails, so position 0 means "unknown".
                    return Native.getLastError() == ENXIO ? allocated : UNKNOWN;
                }
                long hole = libc.lseek(fd, data, SEEK_HOLE);
                if (hole < 0) {
                    return UNKNOWN;
                }
                allocated += hole - data;
                position = hole;
            }
            return position < sizeBytes ? allocated + (sizeBytes - position) : allocated; // past the bound: assume full
        } finally {
            libc.close(fd);
            // Closing a second descriptor of a file drops this process's POSIX lock on it: take it again.
            String problem = FileLocks.relockAfterClose(path);
            if (problem != null) {
                throw new IllegalStateException(problem);
            }
        }
    }
}
