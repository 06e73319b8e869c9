package io.blockcache.cli;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Which other processes hold a file open, as {@code fuser} finds them: the {@code /proc/PID/fd} links that resolve
 * to it (Linux). Processes whose descriptors this user may not list are not seen; where {@code /proc} is missing the
 * answer is empty. Blocking file-system reads; CLI thread only.
 */
final class FileHolders {
    /** Bound on the processes looked at: more than a host runs. */
    private static final int PROCESSES_MAX = 1 << 20;

    private FileHolders() {
    }

    /** The ids of processes other than {@code selfPid} with {@code file} open, ascending. */
    static List<Long> of(Path file, long selfPid) throws IOException {
        Path target = file.toRealPath();
        List<Long> holders = new ArrayList<>();
        Path proc = Path.of("/proc");
        if (!Files.isDirectory(proc)) {
            return holders;
        }
        int looked = 0;
        try (DirectoryStream<Path> processes = Files.newDirectoryStream(proc, "[0-9]*")) {
            for (Path process : processes) {
                if (++looked > PROCESSES_MAX) {
                    break;
                }
                long pid = Long.parseLong(process.getFileName().toString());
                if (pid != selfPid && holds(process.resolve("fd"), target)) {
                    holders.add(pid);
                }
            }
        }
        holders.sort(Long::compare);
        return holders;
    }

    private static boolean holds(Path fds, Path target) {
        try (DirectoryStream<Path> links = Files.newDirectoryStream(fds)) {
            for (Path link : links) {
                try {
                    if (Files.readSymbolicLink(link).equals(target)) {
                        return true;
                    }
                } catch (IOException | UnsupportedOperationException e) {
                    // closed meanwhile, or not a link: not this file
                }
            }
        } catch (IOException e) {
            // another user's process, or one that exited: not visible, so not counted
        }
        return false;
    }
}
