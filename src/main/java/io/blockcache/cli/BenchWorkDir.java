package io.blockcache.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * The work directory of a benchmark that starts servers ({@code bench nbd}, {@code bench backing}): a fresh
 * subdirectory, progress lines on stderr, a one-line error for a failed server or fio, and the directory removed
 * afterwards whatever happened.
 */
final class BenchWorkDir {
    /** A benchmark run in {@code workDir} that reports progress lines to {@code progress}. */
    @FunctionalInterface
    interface Run<T> {
        T run(Path workDir, Consumer<String> progress) throws IOException, InterruptedException;
    }

    private BenchWorkDir() {
    }

    /**
     * Runs {@code bench} in a new directory under {@code parent}; returns its result, or null after printing
     * "{@code tag}: message" when it failed with an I/O error.
     */
    static <T> T run(Path parent, String tag, PrintWriter err, Run<T> bench) throws IOException, InterruptedException {
        Path workDir = Files.createTempDirectory(Files.createDirectories(parent),
                "blockcache-" + tag.replace(' ', '-') + "-");
        try {
            return bench.run(workDir, line -> {
                err.println(tag + ": " + line);
                err.flush();
            });
        } catch (IOException e) {
            err.println(tag + ": " + e.getMessage());
            err.flush();
            return null;
        } finally {
            deleteTree(workDir);
        }
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}
