package io.blockcache.device;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Tells whether the file a {@link FileDevice} holds open is still the file at its path: not deleted (unlinked),
 * not replaced (another inode at the path, a rename over it), not moved away and not truncated (smaller than at
 * open). Writes into an unlinked file succeed and vanish when the process ends; a drain that wrote there would
 * report clean over lost data. Java cannot {@code fstat} an open channel, so this compares what the path refers to
 * now ({@code stat(path)}: device and inode) with what it referred to at open, takes the open file's own link count
 * and size from {@code /proc/self/fd/N} (Linux: {@code stat} follows that link to the open inode, deleted or not),
 * and its size from {@link FileChannel#size()} (an {@code fstat}). Without {@code /proc} a deleted file reads as
 * "deleted or moved away".
 *
 * <p>Once a change is found it is kept (sticky): writes made into the file since it left its path are outside it
 * for good, so only a restart on a restored file makes the device trustworthy again.
 *
 * <p>Thread rule: any thread; {@link #check} makes a few blocking system calls (microseconds), so never the loop
 * thread: the host's watcher thread or {@code EventLoop.offLoop}.
 */
public final class FileWatch {
    /** The attributes read: device and inode say which file, nlink whether it is still linked. */
    private static final String ATTRIBUTES = "unix:dev,ino,nlink,size";
    /** Where Linux lists a process's open files; stat through an entry reaches the open inode itself. */
    private static final Path PROC_FDS = Path.of("/proc/self/fd");

    /** Which file: device and inode number. */
    record Identity(long device, long inode) {
    }

    private final Path path;
    private final FileChannel channel;
    private final long sizeBytesAtOpen;
    private final Identity identity;
    /** {@code /proc/self/fd/N} of the channel, or null where there is none (no /proc, or not found). */
    private final Path procFd;
    private final AtomicReference<String> change = new AtomicReference<>();

    private FileWatch(Path path, FileChannel channel, long sizeBytesAtOpen, Identity identity, Path procFd) {
        this.path = path;
        this.channel = channel;
        this.sizeBytesAtOpen = sizeBytesAtOpen;
        this.identity = identity;
        this.procFd = procFd;
    }

    /**
     * Records what {@code path} refers to now, just after {@code channel} was opened on it, and finds the channel's
     * entry in {@code /proc/self/fd} (the first entry open on the same inode: any of them reads that inode).
     *
     * @param sizeBytesAtOpen the file's size in bytes at open; a smaller size later is a truncation
     * @throws IOException if the path's attributes cannot be read
     */
    public static FileWatch start(Path path, FileChannel channel, long sizeBytesAtOpen) throws IOException {
        Map<String, Object> attributes = Files.readAttributes(path, ATTRIBUTES);
        Identity identity = identity(attributes);
        return new FileWatch(path, channel, sizeBytesAtOpen, identity, findProcFd(identity));
    }

    /** The watched path. */
    public Path path() {
        return path;
    }

    /**
     * What changed under the open file, in one line that starts with "file PATH", or null if it is still the file at
     * its path with at least its size at open. Sticky: once non-null, always the same answer. Null too once the
     * channel is closed (nothing is written through it any more).
     */
    public String check() {
        String known = change.get();
        if (known != null) {
            return known;
        }
        String found;
        try {
            found = look();
        } catch (IOException e) {
            // An unreadable path (a directory made unsearchable, say) is not a change to report as data loss;
            // the next check looks again. A closed channel ends the watch.
            return null;
        }
        if (found == null) {
            return null;
        }
        change.compareAndSet(null, found);
        return change.get();
    }

    private String look() throws IOException {
        if (!channel.isOpen()) {
            return null;
        }
        long sizeBytes = channel.size();
        Map<String, Object> open = openFileAttributes();
        Map<String, Object> atPath = pathAttributes();
        boolean unlinked = open != null && ((Number) open.get("nlink")).longValue() == 0;
        String stillReadable = procFd == null ? ""
                : " (its contents stay readable at /proc/" + ProcessHandle.current().pid() + "/fd/"
                        + procFd.getFileName() + " until this process ends)";
        if (atPath != null && !identity(atPath).equals(identity)) {
            return "file " + path + " was replaced by another file while open (inode " + identity.inode() + " is open,"
                    + " inode " + identity(atPath).inode() + " is at the path now)"
                    + (unlinked ? "; the open one was deleted" + stillReadable : "");
        }
        if (atPath == null) {
            return open == null || unlinked ? "file " + path + " was deleted while open" + stillReadable
                    : "file " + path + " was moved away from its path while open (another link to it remains)";
        }
        if (sizeBytes < sizeBytesAtOpen) {
            return "file " + path + " was truncated while open, from " + sizeBytesAtOpen + " to " + sizeBytes
                    + " bytes";
        }
        return null;
    }

    /** The open inode's attributes through {@code /proc/self/fd/N}, or null where that cannot be read. */
    private Map<String, Object> openFileAttributes() {
        if (procFd == null) {
            return null;
        }
        try {
            Map<String, Object> attributes = Files.readAttributes(procFd, ATTRIBUTES);
            // The number is ours while the channel is open; checked anyway, since a mistake here would report a
            // healthy file as deleted.
            return identity(attributes).equals(identity) ? attributes : null;
        } catch (IOException e) {
            return null;
        }
    }

    private Map<String, Object> pathAttributes() throws IOException {
        try {
            return Files.readAttributes(path, ATTRIBUTES);
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    private static Identity identity(Map<String, Object> attributes) {
        return new Identity(((Number) attributes.get("dev")).longValue(), ((Number) attributes.get("ino")).longValue());
    }

    /** The first {@code /proc/self/fd} entry open on {@code identity}'s inode, or null. */
    private static Path findProcFd(Identity identity) {
        if (!Files.isDirectory(PROC_FDS)) {
            return null;
        }
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(PROC_FDS)) {
            for (Path entry : entries) {
                try {
                    if (identity(Files.readAttributes(entry, ATTRIBUTES)).equals(identity)) {
                        return entry;
                    }
                } catch (IOException | UnsupportedOperationException e) {
                    continue; // an entry closed meanwhile, a socket or pipe: not ours
                }
            }
        } catch (IOException e) {
            return null;
        }
        return null;
    }
}
