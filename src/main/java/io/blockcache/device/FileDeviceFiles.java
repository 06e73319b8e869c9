package io.blockcache.device;

import com.sun.nio.file.ExtendedOpenOption;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Opening and creating the files under a {@link FileDevice}: the option set, the O_DIRECT checks and
 * their error messages. Blocking; call at start-up, not from a running loop step.
 */
final class FileDeviceFiles {
    /** An open channel with what the device needs to know about it. */
    record Opened(FileChannel channel, long sizeBytes, int alignmentBytes) {
    }

    private FileDeviceFiles() {
    }

    /**
     * Creates {@code path} as a sparse file of {@code sizeBytes}; refuses an existing file.
     *
     * <p>The file appears whole or not at all: it is sized under a temporary sibling name and then hard-linked to
     * {@code path} (link(2) refuses an existing name, where rename(2) would replace it). A process killed between
     * creating and sizing {@code path} itself left a 0-byte file that the next {@code volume add} of the same name
     * refused as "size 0 bytes" (found by a real kill -9 during an add). A kill here leaves at most the temporary
     * file, which the next create of the same path replaces.
     */
    static void createSparse(Path path, long sizeBytes) throws IOException {
        if (Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            throw new FileAlreadyExistsException(path.toString()); // never clobber what may be someone's data
        }
        Path sizing = path.resolveSibling("." + path.getFileName() + ".creating");
        Files.deleteIfExists(sizing); // left by a create killed before its link
        Files.createFile(sizing);
        try {
            try (RandomAccessFile file = new RandomAccessFile(sizing.toFile(), "rw")) {
                file.setLength(sizeBytes); // ftruncate: extends without allocating blocks
            }
            linkOrMove(sizing, path);
        } finally {
            Files.deleteIfExists(sizing);
        }
    }

    /** Gives {@code from} the name {@code to}, refusing an existing {@code to}. */
    private static void linkOrMove(Path from, Path to) throws IOException {
        try {
            Files.createLink(to, from); // FileAlreadyExistsException if someone created the name meanwhile
        } catch (UnsupportedOperationException | FileSystemException noHardLinks) {
            if (noHardLinks instanceof FileAlreadyExistsException exists) {
                throw exists;
            }
            Files.move(from, to); // a file system without hard links: checks, then renames
        }
    }

    /**
     * Opens {@code path} for reading and writing (or only reading, if asked), with O_DIRECT if asked (not with
     * read-only, which is for examining a file, where the page cache does no harm).
     *
     * <p>Opened for writing, the file is locked exclusively for as long as the channel is open ({@link FileLocks}).
     *
     * @throws UnsupportedOperationException if O_DIRECT was asked and the file system refuses it
     * @throws FileInUseException if another process (or another open in this one) has the file open for writing
     * @throws IOException if the file cannot be opened, or its size or the O_DIRECT alignment does not fit
     *     the logical block size
     */
    static Opened open(Path path, FileDeviceOptions options) throws IOException {
        FileChannel channel = options.readOnly() ? FileChannel.open(path, StandardOpenOption.READ)
                : options.direct() ? openDirect(path) : FileChannel.open(path, readWrite());
        try {
            if (!options.readOnly()) {
                // Before the size check and before anyone writes: a file in use by another cache is refused here.
                FileLocks.lockExclusive(channel, path);
            }
            int alignmentBytes = options.direct() ? directAlignmentBytes(path, options) : options.logicalBlockBytes();
            long sizeBytes = channel.size();
            if (sizeBytes <= 0 || sizeBytes % options.logicalBlockBytes() != 0) {
                throw new IOException(path + " has size " + sizeBytes + " bytes, not a positive multiple of the "
                        + "logical block size " + options.logicalBlockBytes());
            }
            return new Opened(channel, sizeBytes, alignmentBytes);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    private static FileChannel openDirect(Path path) throws IOException {
        OpenOption[] direct = {StandardOpenOption.READ, StandardOpenOption.WRITE, ExtendedOpenOption.DIRECT};
        try {
            return FileChannel.open(path, direct);
        } catch (IOException directFailure) {
            // Tell "this file system refuses O_DIRECT" (tmpfs on older kernels) apart from "no such file".
            try (FileChannel plain = FileChannel.open(path, readWrite())) {
                throw new UnsupportedOperationException("O_DIRECT (com.sun.nio.file.ExtendedOpenOption.DIRECT) "
                        + "is not supported by the file system holding " + path + ": " + directFailure, directFailure);
            } catch (IOException plainFailure) {
                directFailure.addSuppressed(plainFailure);
                throw directFailure;
            }
        }
    }

    /** The buffer and offset alignment O_DIRECT needs here: the file system's block size, as the JDK checks. */
    private static int directAlignmentBytes(Path path, FileDeviceOptions options) throws IOException {
        long blockBytes = Files.getFileStore(path).getBlockSize();
        if (Long.bitCount(blockBytes) != 1 || options.logicalBlockBytes() % blockBytes != 0) {
            throw new IOException("O_DIRECT on " + path + " needs I/O aligned to the file system block of "
                    + blockBytes + " bytes; logical block size " + options.logicalBlockBytes() + " is not a multiple");
        }
        return (int) blockBytes;
    }

    private static OpenOption[] readWrite() {
        return new OpenOption[] {StandardOpenOption.READ, StandardOpenOption.WRITE};
    }
}
