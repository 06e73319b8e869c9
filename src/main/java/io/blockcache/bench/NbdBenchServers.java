package io.blockcache.bench;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Starts the three servers {@code bench nbd} compares, each on its own files in one work directory (so on the
 * same disk) and each exporting the same number of bytes.
 *
 * <ul>
 *   <li>{@code blockcache}: {@code serve} in a child JVM (this JVM's java and class path, the JVM flags
 *       bin/blockcache would give it), write-back mode,
 *       a cache file of {@link #CACHE_BYTES} in front of a backing file one data offset longer than the export;
 *   <li>{@code nbdkit-file}: {@code nbdkit --foreground --exit-with-parent --ipaddr 127.0.0.1 --port P file FILE}
 *       (defaults otherwise: page cache, 16 threads);
 *   <li>{@code qemu-nbd}: {@code qemu-nbd --format=raw --persistent --shared=8 --bind=127.0.0.1 --port=P
 *       --cache=none --aio=native FILE}, and without the last two flags if this qemu-nbd refuses them.
 * </ul>
 */
final class NbdBenchServers {
    /** Export size of every server: room for the 1 GiB fio region and then some. */
    static final long EXPORT_BYTES = 2L << 30;
    /** blockcache's cache file: twice the fio region, so overwrites find free buckets while old ones empty. */
    static final long CACHE_BYTES = 2L << 30;
    /** FORMAT.md §4: a backing device's volume starts at dataOffsetBytes (default 1 MiB). */
    private static final long BACKING_DATA_OFFSET_BYTES = 1L << 20;
    /** How long asking serve for its JVM flags may take (a JVM start). */
    private static final long SIZING_WAIT_SECONDS = 60;

    private final Path workDir;

    NbdBenchServers(Path workDir) {
        this.workDir = workDir;
    }

    /** blockcache serve of this build on fresh files (formatted on start). */
    NbdServerProcess blockcache() throws IOException, InterruptedException {
        return blockcache("blockcache", System.getProperty("java.class.path"));
    }

    /**
     * blockcache serve named {@code name}, run from {@code classPath} (another build, e.g. main, for a
     * before/after comparison within one run), on fresh files named after it.
     */
    NbdServerProcess blockcache(String name, String classPath) throws IOException, InterruptedException {
        int port = NbdServerProcess.freePort();
        String adminHostPort = "127.0.0.1:" + NbdServerProcess.freePort();
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> serve = List.of("-cp", classPath, "io.blockcache.cli.Main", "serve",
                "--cache", workDir.resolve(name + "-cache.img").toString(),
                "--backing", "default=" + workDir.resolve(name + "-backing.img"),
                "--cache-size", Long.toString(CACHE_BYTES),
                "--backing-size", Long.toString(EXPORT_BYTES + BACKING_DATA_OFFSET_BYTES),
                "--nbd-listen", "127.0.0.1:" + port,
                "--admin-listen", adminHostPort,
                "--mode", "writeback");
        List<String> command = new ArrayList<>();
        command.add(java);
        command.addAll(jvmOptions(java, serve, workDir));
        command.addAll(serve);
        return NbdServerProcess.start(name, command, port, "default", workDir.resolve(name + ".log"),
                new ServeAdmin(adminHostPort, "default"));
    }

    /**
     * The JVM flags bin/blockcache gives this serve ({@code serve --print-jvm-options}: heap and direct memory
     * sized from the cache), so the bench measures memory as deployed; a build without that option (an older
     * baseline) runs with this JVM's own flags, as bin/blockcache then gave it.
     */
    static List<String> jvmOptions(String java, List<String> serve, Path workDir)
            throws IOException, InterruptedException {
        List<String> ask = new ArrayList<>(List.of(java, "-XX:TieredStopAtLevel=1", "-Xmx64m"));
        ask.addAll(serve);
        ask.add("--print-jvm-options");
        Path answer = workDir.resolve("jvm-options.txt");
        Process process = new ProcessBuilder(ask).redirectError(ProcessBuilder.Redirect.DISCARD)
                .redirectOutput(answer.toFile()).start();
        String printed = process.waitFor(SIZING_WAIT_SECONDS, TimeUnit.SECONDS) && process.exitValue() == 0
                ? Files.readString(answer).strip() : "";
        process.destroyForcibly();
        return printed.startsWith("-XX:") ? List.of(printed.split(" "))
                : ManagementFactory.getRuntimeMXBean().getInputArguments();
    }

    /** nbdkit's file plugin on a fresh sparse file of {@link #EXPORT_BYTES}. */
    NbdServerProcess nbdkitFile() throws IOException, InterruptedException {
        Path file = sparseFile("nbdkit.img");
        int port = NbdServerProcess.freePort();
        List<String> command = List.of("nbdkit", "--foreground", "--exit-with-parent", "--ipaddr", "127.0.0.1",
                "--port", Integer.toString(port), "file", file.toString());
        return NbdServerProcess.start("nbdkit-file", command, port, "", workDir.resolve("nbdkit.log"));
    }

    /** qemu-nbd on a fresh sparse raw file, with O_DIRECT and native AIO when it accepts them. */
    NbdServerProcess qemuNbd() throws IOException, InterruptedException {
        Path file = sparseFile("qemu-nbd.img");
        List<String> base = List.of("qemu-nbd", "--format=raw", "--persistent", "--shared=8", "--bind=127.0.0.1");
        try {
            return qemuNbd(base, List.of("--cache=none", "--aio=native"), file);
        } catch (IOException refused) {
            return qemuNbd(base, List.of(), file);
        }
    }

    private NbdServerProcess qemuNbd(List<String> base, List<String> extra, Path file)
            throws IOException, InterruptedException {
        int port = NbdServerProcess.freePort();
        List<String> command = new ArrayList<>(base);
        command.add("--port=" + port);
        command.addAll(extra);
        command.add(file.toString());
        return NbdServerProcess.start("qemu-nbd", command, port, "", workDir.resolve("qemu-nbd.log"));
    }

    private Path sparseFile(String name) throws IOException {
        Path file = workDir.resolve(name);
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(EXPORT_BYTES);
        }
        return file;
    }
}
