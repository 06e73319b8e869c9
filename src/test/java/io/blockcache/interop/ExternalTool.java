package io.blockcache.interop;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Finds and runs the real NBD clients (nbdinfo, nbdcopy, qemu-img, fio, nbdsh) that the interop tests drive.
 *
 * <p>A missing tool fails the test when the environment variable {@code CI} is set (CI installs them in
 * {@code .ci/run}, so a missing one is a broken CI, not a reason to skip) and otherwise aborts it with an
 * assumption that names the tool, so a developer without them still gets a green build.
 */
final class ExternalTool {
    /** Where the system python with the {@code nbd} module lives; nbdsh must find it before any other python. */
    private static final String SYSTEM_BIN = "/usr/bin";

    private ExternalTool() {
    }

    /** The result of one run: exit code, standard output and standard error as text. */
    record Run(int exitCode, String out, String err) {
        /** Both streams, for assertion messages. */
        String describe() {
            return "exit " + exitCode + "\n--- stdout\n" + out + "\n--- stderr\n" + err;
        }
    }

    /** Ensures {@code name} is on the PATH (or in /usr/bin): fails under CI, skips otherwise. */
    static void require(String name) {
        require(name, System.getenv("CI") != null);
    }

    /** {@link #require(String)} with the CI decision made by the caller (so that both paths can be tested). */
    static void require(String name, boolean underCi) {
        if (find(name) != null) {
            return;
        }
        String message = "missing tool: " + name + " (install: apt-get install libnbd-bin nbdkit qemu-utils fio"
                + " python3-libnbd)";
        if (underCi) {
            throw new AssertionError(message + "; CI is set, so this is a failure, not a skip");
        }
        Assumptions.abort(message);
    }

    private static Path find(String name) {
        String path = System.getenv().getOrDefault("PATH", "");
        List<String> dirs = new ArrayList<>(List.of(path.split(File.pathSeparator)));
        dirs.add(SYSTEM_BIN);
        for (String dir : dirs) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, name))) {
                return Path.of(dir, name);
            }
        }
        return null;
    }

    /**
     * Runs {@code command} with /usr/bin first on the PATH, waits at most {@code timeout} (then kills it and
     * fails), and returns what it printed. Output goes to files so a chatty tool can never block on a full pipe.
     */
    static Run run(Path workDir, Duration timeout, List<String> command) throws IOException, InterruptedException {
        return run(workDir, timeout, command, Map.of());
    }

    /** {@link #run(Path, Duration, List)} with more environment variables (e.g. AWS credentials). */
    static Run run(Path workDir, Duration timeout, List<String> command, Map<String, String> environment)
            throws IOException, InterruptedException {
        Path out = Files.createTempFile(workDir, "tool", ".out");
        Path err = Files.createTempFile(workDir, "tool", ".err");
        ProcessBuilder builder = new ProcessBuilder(command).directory(workDir.toFile())
                .redirectOutput(out.toFile()).redirectError(err.toFile()).redirectInput(ProcessBuilder.Redirect.PIPE);
        Map<String, String> env = builder.environment();
        env.put("PATH", SYSTEM_BIN + File.pathSeparator + env.getOrDefault("PATH", ""));
        env.putAll(environment);
        Process process = builder.start();
        process.getOutputStream().close();
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
            throw new AssertionError("timed out after " + timeout + ": " + command + "\n--- stderr\n"
                    + Files.readString(err, StandardCharsets.UTF_8));
        }
        return new Run(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }
}
