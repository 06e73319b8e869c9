package io.blockcache.interop;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code blockcache serve} as a child JVM on 127.0.0.1 with ephemeral ports, on a data directory the test owns;
 * a real process, so that {@code kill -9} and restart are the real thing and clients see the real CLI.
 */
final class ServeProcess implements AutoCloseable {
    /** Sizes small enough that whole-export tools (qemu-img compare, nbdcopy) finish in about a second. */
    static final String CACHE_SIZE = "64M";
    static final String BACKING_SIZE = "64M";
    private static final Pattern NBD_LINE = Pattern.compile("^NBD: +nbds?://127\\.0\\.0\\.1:(\\d+) ");
    private static final Pattern ADMIN_LINE = Pattern.compile("^admin: http://127\\.0\\.0\\.1:(\\d+) ");
    private static final long EXIT_WAIT_SECONDS = 30;
    /** The longest a start (JVM, format or recovery of 64 MiB, listeners) may take on a loaded machine. */
    private static final long START_TIMEOUT_SECONDS = 180;

    private final Process process;
    private final int nbdPort;
    private final int adminPort;
    private final Path log;

    private ServeProcess(Process process, int nbdPort, int adminPort, Path log) {
        this.process = process;
        this.nbdPort = nbdPort;
        this.adminPort = adminPort;
        this.log = log;
    }

    /** Starts serve on {@code dataDir} (formatting it if new) and returns once the NBD address is printed. */
    static ServeProcess start(Path dataDir, String name) throws IOException, InterruptedException {
        return start(dataDir, name, "");
    }

    /** {@link #start(Path, String)} with more lines for the config file (e.g. {@code knob.NAME=VALUE}). */
    static ServeProcess start(Path dataDir, String name, String moreConfig) throws IOException, InterruptedException {
        return start(dataDir, name, moreConfig, BACKING_SIZE, Map.of());
    }

    /** {@link #start(Path, String, String)} with a backing file of {@code backingSize} (when it is created). */
    static ServeProcess start(Path dataDir, String name, String moreConfig, String backingSize)
            throws IOException, InterruptedException {
        return start(dataDir, name, moreConfig, backingSize, Map.of());
    }

    /** {@link #start(Path, String, String)} with more environment variables for the child (e.g. NOTIFY_SOCKET). */
    static ServeProcess start(Path dataDir, String name, String moreConfig, Map<String, String> environment)
            throws IOException, InterruptedException {
        return start(dataDir, name, moreConfig, BACKING_SIZE, environment);
    }

    /**
     * The general form: a backing file of {@code backingSize}, more environment variables for the child and more
     * arguments for serve (e.g. {@code --force}).
     */
    static ServeProcess start(Path dataDir, String name, String moreConfig, String backingSize,
                              Map<String, String> environment, String... moreArgs)
            throws IOException, InterruptedException {
        Path log = dataDir.resolveSibling(dataDir.getFileName() + "-" + name + ".err");
        Process process = launch(dataDir, name, moreConfig, backingSize, environment, log, moreArgs);
        return awaitBanner(process, log);
    }

    /**
     * Starts serve as {@link #start(Path, String, String, String, Map, String...)} does, but sends SIGKILL
     * {@code killAfterMs} after the launch without waiting for its banner: a kill during start-up, open or
     * recovery. Returns true if it was still running then; false if it had ended by itself (a failure: the caller
     * reports the log, {@code DATADIR-NAME.err}).
     */
    static boolean startAndKill(Path dataDir, String name, String moreConfig, String backingSize,
                                Map<String, String> environment, long killAfterMs)
            throws IOException, InterruptedException {
        Path log = dataDir.resolveSibling(dataDir.getFileName() + "-" + name + ".err");
        Process process = launch(dataDir, name, moreConfig, backingSize, environment, log);
        Thread.ofVirtual().start(() -> drain(process)); // the banner must never block on a full pipe
        boolean ended = process.waitFor(killAfterMs, TimeUnit.MILLISECONDS); // returns early only if it died
        process.destroyForcibly();
        if (!process.waitFor(EXIT_WAIT_SECONDS, TimeUnit.SECONDS)) {
            throw new AssertionError("serve did not die after SIGKILL");
        }
        return !ended;
    }

    private static void drain(Process process) {
        try {
            process.getInputStream().transferTo(java.io.OutputStream.nullOutputStream());
        } catch (IOException closed) {
            // the process was killed: nothing more to read
        }
    }

    private static Process launch(Path dataDir, String name, String moreConfig, String backingSize,
                                  Map<String, String> environment, Path log, String... moreArgs) throws IOException {
        String java = ProcessHandle.current().info().command().orElseThrow();
        // Interop tests check what clients see of cached and dirty data, so that state must not move under them:
        // writeback is paused (it would clean written ranges at once on an idle server), and congestion bypass is
        // off (on a loaded test machine request latency alone can pass bcache's thresholds).
        Path config = dataDir.resolveSibling(dataDir.getFileName() + "-" + name + ".properties");
        Files.writeString(config, "knob.writeback.default.running=false\n"
                + "knob.volume.default.congested_read_threshold_us=0\n"
                + "knob.volume.default.congested_write_threshold_us=0\n" + moreConfig);
        List<String> command = new java.util.ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path"),
                "io.blockcache.cli.Main", "serve", "--data-dir", dataDir.toString(),
                "--cache-size", CACHE_SIZE, "--backing-size", backingSize,
                "--nbd-listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0", "--config", config.toString()));
        command.addAll(List.of(moreArgs));
        ProcessBuilder builder = new ProcessBuilder(command).redirectError(log.toFile());
        builder.environment().remove("NOTIFY_SOCKET"); // a test run under systemd must not notify the real manager
        builder.environment().putAll(environment);
        return builder.start();
    }

    private static ServeProcess awaitBanner(Process process, Path log) throws IOException, InterruptedException {
        BufferedReader out = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        String line;
        int nbdPort = -1;
        AtomicBoolean up = new AtomicBoolean();
        // A serve that hangs before its banner is killed, which ends the reads below: no test waits for ever.
        CompletableFuture.delayedExecutor(START_TIMEOUT_SECONDS, TimeUnit.SECONDS).execute(() -> {
            if (!up.get()) {
                process.destroyForcibly();
            }
        });
        while ((line = out.readLine()) != null) { // ends if the process dies before printing its banner
            Matcher nbd = NBD_LINE.matcher(line);
            if (nbd.find()) {
                nbdPort = Integer.parseInt(nbd.group(1));
            }
            Matcher admin = ADMIN_LINE.matcher(line);
            if (admin.find() && nbdPort > 0) { // the banner prints the admin line after the NBD one
                up.set(true);
                // Keep draining stdout so the child never blocks on a full pipe.
                Thread.ofVirtual().start(() -> out.lines().forEach(ignored -> { }));
                return new ServeProcess(process, nbdPort, Integer.parseInt(admin.group(1)), log);
            }
        }
        process.waitFor(EXIT_WAIT_SECONDS, TimeUnit.SECONDS);
        throw new AssertionError("serve printed no NBD address (killed if not up after " + START_TIMEOUT_SECONDS
                + " s); stderr:\n" + Files.readString(log));
    }

    /** The NBD URI of the default export, e.g. {@code nbd://127.0.0.1:34567/default}. */
    String uri() {
        return "nbd://127.0.0.1:" + nbdPort + "/default";
    }

    /** The admin API's {@code HOST:PORT}. */
    String adminHostPort() {
        return "127.0.0.1:" + adminPort;
    }

    /** The process id of the serve JVM. */
    long pid() {
        return process.pid();
    }

    /** Where serve listens for NBD. */
    int nbdPort() {
        return nbdPort;
    }

    /** What serve printed on standard error so far (for assertion messages). */
    String log() throws IOException {
        return Files.readString(log);
    }

    /** The exit code of the ended process. */
    int exitValue() {
        return process.exitValue();
    }

    /** SIGKILL: no shutdown hook, no journal commit; waits until the process is gone. */
    void killMinusNine() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(EXIT_WAIT_SECONDS, TimeUnit.SECONDS)) {
            throw new AssertionError("serve did not die after SIGKILL");
        }
    }

    /** SIGTERM and wait (a clean stop); SIGKILL if it does not end in time. */
    @Override
    public void close() throws InterruptedException {
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        if (!process.waitFor(EXIT_WAIT_SECONDS, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(EXIT_WAIT_SECONDS, TimeUnit.SECONDS);
        }
    }
}
