package io.blockcache.cli;

import io.blockcache.log.Level;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Marks {@code serve}'s warnings and errors on stderr with the priority prefixes of sd-daemon(3) ({@code <3>} error,
 * {@code <4>} warning) when journald reads stderr, so {@code journalctl -p warning -u blockcache} finds them and
 * they show in colour; every other line stays as it is and gets the unit's default priority (info). Plain lines
 * everywhere else: a terminal or a log file never sees a prefix.
 *
 * <p>How it knows: systemd sets {@code JOURNAL_STREAM=DEVICE:INODE} for a service whose stdout or stderr is a
 * journal stream (systemd.exec(5), "$JOURNAL_STREAM"); as that page asks, the prefix is used only when stderr is
 * that very stream (same device and inode, read through {@code /proc/self/fd/2}), not when stderr was redirected
 * elsewhere and only stdout goes to the journal. Where {@code /proc} cannot say, the variable alone decides.
 *
 * <p>Thread rule: any thread (immutable).
 */
final class JournalPriority {
    /** This process's, decided once: the environment and stderr do not change while serve runs. */
    static final JournalPriority PROCESS = of(System.getenv("JOURNAL_STREAM"), stderrDeviceAndInode());

    private final boolean journal;

    private JournalPriority(boolean journal) {
        this.journal = journal;
    }

    /**
     * @param journalStream the value of {@code JOURNAL_STREAM}, or null
     * @param stderrDeviceAndInode stderr's {@code DEVICE:INODE} (decimal), or null where not known
     */
    static JournalPriority of(String journalStream, String stderrDeviceAndInode) {
        boolean set = journalStream != null && !journalStream.isBlank();
        return new JournalPriority(set && (stderrDeviceAndInode == null
                || stderrDeviceAndInode.equals(journalStream.trim())));
    }

    /** {@code line} marked as an error. */
    String error(String line) {
        return mark(Level.ERROR, line);
    }

    /** {@code line} marked as a warning. */
    String warning(String line) {
        return mark(Level.WARNING, line);
    }

    /** {@code line} with {@code level}'s prefix under journald, as it is otherwise. */
    String mark(Level level, String line) {
        return journal ? prefix(level) + line : line;
    }

    /** The sd-daemon(3) prefix of {@code level}: syslog's values (sd-daemon.h: SD_ERR, SD_WARNING, SD_INFO). */
    static String prefix(Level level) {
        return switch (level) {
            case ERROR -> "<3>";
            case WARNING -> "<4>";
            case INFO -> "<6>";
        };
    }

    /** Whether lines get prefixes. */
    boolean journal() {
        return journal;
    }

    /** stderr's device and inode as {@code JOURNAL_STREAM} writes them, or null where {@code /proc} cannot say. */
    private static String stderrDeviceAndInode() {
        return deviceAndInode(Path.of("/proc/self/fd/2"));
    }

    /** {@code path}'s device and inode (links followed) as {@code DEVICE:INODE}, or null where unknown. */
    static String deviceAndInode(Path path) {
        try {
            Map<String, Object> attributes = Files.readAttributes(path, "unix:dev,ino");
            return attributes.get("dev") + ":" + attributes.get("ino");
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException | SecurityException e) {
            return null; // no /proc, or no unix attribute view: JOURNAL_STREAM alone decides
        }
    }
}
