package io.blockcache.device;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Optional;

/**
 * Exclusive open of a device file: every process that writes a cache or backing file holds an OS lock on it for as
 * long as it has the file open, so that a second {@code serve}, {@code format} or {@code replay-log} on the same file
 * is refused before it writes anything. Two caches writing one file destroy each other's metadata (a journal that no
 * longer verifies, dirty data stranded), which is why qemu-nbd, LVM and bcache refuse a second open too.
 *
 * <p>The lock is a POSIX record lock ({@code fcntl}, which is what {@link FileChannel#tryLock} takes on Linux) over
 * the whole file, on the inode: any path to the file (a symlink, another spelling, a hard link) meets it, and the
 * kernel drops it when the process ends, so a {@code kill -9} leaves no stale lock behind. A POSIX lock is also
 * dropped when the process closes <em>any</em> descriptor of that file, so a process must not open and close the
 * file a second time while it holds the lock ({@link #heldByThisProcess} lets a test check that it still does).
 *
 * <p>Who holds a lock is read from {@code /proc/locks} (the holder's process id) and the JDK's {@link ProcessHandle}
 * (its command line and start time); where that is not visible (another PID namespace, not Linux) the message says
 * only that another process holds it.
 *
 * <p>Thread rule: any thread; blocking (file system calls), for start-up and tools, never a running loop step.
 */
public final class FileLocks {
    private static final Path PROC_LOCKS = Path.of("/proc/locks");
    private static final Path PROC_HOSTNAME = Path.of("/proc/sys/kernel/hostname");
    /** A holder's command line is cut here: enough to tell {@code serve} from {@code format} and see its files. */
    private static final int COMMAND_CHARS_MAX = 160;
    /** The locks this process took and holds (until their channel closes); any thread. */
    private static final List<Held> HELD = new java.util.concurrent.CopyOnWriteArrayList<>();
    private static final DateTimeFormatter SINCE = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'")
            .withZone(ZoneOffset.UTC);

    private FileLocks() {
    }

    /**
     * Takes an exclusive lock on the whole of {@code path}'s file through {@code channel} (opened for writing); the
     * lock lasts until the channel is closed.
     *
     * @throws FileInUseException if another process, or another open in this process, holds a lock on the file
     * @throws IOException if the lock call itself fails
     */
    public static FileLock lockExclusive(FileChannel channel, Path path) throws IOException {
        FileLock lock;
        try {
            lock = channel.tryLock(0, Long.MAX_VALUE, false);
        } catch (OverlappingFileLockException sameProcess) {
            throw new FileInUseException(path + " is already open for writing in this process (pid "
                    + ProcessHandle.current().pid() + "); a file can belong to one cache at a time");
        }
        if (lock == null) {
            throw new FileInUseException(inUseMessage(path));
        }
        HELD.removeIf(held -> !held.lock().isValid()); // closed channels: their locks went with them
        HELD.add(new Held(lock, inodeKeyOrNull(path)));
        return lock;
    }

    /**
     * Takes again the locks this process holds on {@code path}'s file, after this process opened and closed the file
     * a second time (which drops every POSIX lock it had on it: {@code fs/locks.c}, "locks_remove_posix"). A reader
     * that must open a locked file (device.FileSpace, to walk its holes) calls this after its close.
     *
     * @return null if every lock is held again (or none was), else one line saying another process took the file
     *     in between — two caches may now write it
     */
    public static String relockAfterClose(Path path) {
        String key = inodeKeyOrNull(path);
        String problem = null;
        for (Held held : HELD) {
            if (key == null || !key.equals(held.inodeKey()) || !held.lock().isValid()) {
                continue;
            }
            FileChannel channel = held.lock().channel();
            try {
                held.lock().release(); // the kernel dropped it already; this forgets it in the JDK's own table
                HELD.remove(held);
                FileLock again = channel.tryLock(0, Long.MAX_VALUE, false);
                if (again == null) {
                    problem = inUseMessage(path) + " (it took the file while this process briefly held no lock)";
                } else {
                    HELD.add(new Held(again, key));
                }
            } catch (IOException | OverlappingFileLockException e) {
                problem = "cannot lock " + path + " again: " + e;
            }
        }
        return problem;
    }

    /**
     * Checks that this process still holds the lock it took on {@code path}'s file and takes it again if a second
     * open and close in this process dropped it: a safety net for {@link #relockAfterClose} callers that a future
     * change forgets (device.FileDevice#keepLock, from the device watcher, once a second).
     *
     * @return null if nothing was amiss (or this process never locked the file), else one line for the log
     */
    public static String keepHeld(Path path) {
        String key = inodeKeyOrNull(path);
        boolean ours = key != null && HELD.stream().anyMatch(held -> key.equals(held.inodeKey())
                && held.lock().isValid());
        if (!ours || heldByThisProcess(path)) {
            return null;
        }
        String problem = relockAfterClose(path);
        return problem != null ? problem
                : "the lock on " + path + " was lost (this process opened and closed the file a second time) and is"
                        + " taken again";
    }

    /** A lock this process took, with the inode it is on ({@link #inodeKey}). */
    private record Held(FileLock lock, String inodeKey) {
    }

    private static String inodeKeyOrNull(Path path) {
        try {
            return inodeKey(path);
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return null;
        }
    }

    /**
     * One line naming who holds a lock on {@code path}, e.g. {@code "/d/cache.img is in use by pid 4242 (blockcache
     * serve --data-dir /d) on host h1 since 2026-12-07 10:52:03 UTC"}, or empty if nobody does (as far as this
     * process can see).
     */
    public static Optional<String> holder(Path path) {
        Optional<Long> pid = holderPid(path);
        if (pid.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(path + " is in use by " + describe(pid.get()));
    }

    /** Whether this process holds a lock on {@code path}'s file now (read from {@code /proc/locks}). */
    public static boolean heldByThisProcess(Path path) {
        long self = ProcessHandle.current().pid();
        return lockHolders(path).contains(self);
    }

    private static String inUseMessage(Path path) {
        Optional<Long> pid = holderPid(path);
        String who = pid.map(FileLocks::describe).orElse("another process (its process id is not visible here)");
        return path + " is in use by " + who + "; a file can belong to one cache at a time: stop that process"
                + " first (two processes writing one cache or backing file destroy its data)";
    }

    private static Optional<Long> holderPid(Path path) {
        long self = ProcessHandle.current().pid();
        return lockHolders(path).stream().filter(pid -> pid != self).findFirst();
    }

    /** The process ids holding POSIX locks on {@code path}'s inode, from {@code /proc/locks}; empty if unreadable. */
    static List<Long> lockHolders(Path path) {
        String inode;
        List<String> lines;
        try {
            inode = inodeKey(path);
            lines = Files.readAllLines(PROC_LOCKS);
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return List.of();
        }
        return ProcLocks.holdersOf(lines, inode);
    }

    /**
     * The inode as {@code /proc/locks} spells it, {@code MAJOR:MINOR:INODE} with the device numbers in hex (as
     * Linux's {@code fs/locks.c} prints them: {@code "%02x:%02x:%lu"}).
     */
    private static String inodeKey(Path path) throws IOException {
        long device = ((Number) Files.getAttribute(path, "unix:dev")).longValue();
        long inode = ((Number) Files.getAttribute(path, "unix:ino")).longValue();
        // glibc's major()/minor() for the 64-bit dev_t.
        long major = ((device >>> 8) & 0xfffL) | ((device >>> 32) & ~0xfffL);
        long minor = (device & 0xffL) | ((device >>> 12) & ~0xffL);
        return String.format("%02x:%02x:%d", major, minor, inode);
    }

    private static String describe(long pid) {
        StringBuilder text = new StringBuilder("pid ").append(pid);
        Optional<ProcessHandle> process = ProcessHandle.of(pid);
        commandLine(pid).or(() -> process.flatMap(p -> p.info().commandLine())).map(FileLocks::shortCommand)
                .ifPresent(command -> text.append(" (").append(command).append(')'));
        text.append(" on host ").append(hostName());
        process.flatMap(p -> p.info().startInstant()).map(SINCE::format)
                .ifPresent(since -> text.append(" since ").append(since));
        return text.toString();
    }

    /** The whole command line from {@code /proc/PID/cmdline} (the JDK's may be cut short), space-separated. */
    private static Optional<String> commandLine(long pid) {
        try {
            String raw = Files.readString(Path.of("/proc", Long.toString(pid), "cmdline"));
            String joined = raw.replace('\0', ' ').strip();
            return joined.isEmpty() ? Optional.empty() : Optional.of(joined);
        } catch (IOException | java.io.UncheckedIOException e) {
            return Optional.empty();
        }
    }

    /** {@code blockcache ARGS} for our launcher's command lines (JVM flags left out), else the command cut short. */
    static String shortCommand(String commandLine) {
        String shown = commandLine;
        int main = commandLine.indexOf("io.blockcache.cli.Main ");
        int jar = commandLine.indexOf("blockcache.jar ");
        if (main >= 0) {
            shown = "blockcache " + commandLine.substring(main + "io.blockcache.cli.Main ".length());
        } else if (jar >= 0) {
            shown = "blockcache " + commandLine.substring(jar + "blockcache.jar ".length());
        }
        return shown.length() <= COMMAND_CHARS_MAX ? shown : shown.substring(0, COMMAND_CHARS_MAX) + "...";
    }

    private static String hostName() {
        try {
            return Files.readString(PROC_HOSTNAME).strip();
        } catch (IOException e) {
            return "localhost";
        }
    }
}
