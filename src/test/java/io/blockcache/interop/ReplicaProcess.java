package io.blockcache.interop;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One member of a replication group: {@code blockcache serve --node-id ID --peers ...} as a child JVM on 127.0.0.1,
 * with fixed ports (a member binds NBD and admin only while it leads), its log in a file per incarnation.
 */
final class ReplicaProcess {
    private static final Pattern SERVING = Pattern.compile("serving \\[[^]]*] on nbd://127\\.0\\.0\\.1:(\\d+), admin"
            + " http://127\\.0\\.0\\.1:(\\d+) \\(term (\\d+)\\)");
    private static final long EXIT_WAIT_SECONDS = 30;

    final String id;
    final Path dataDir;
    final int nbdPort;
    final int adminPort;
    private final List<String> command;
    private final Map<String, String> environment;
    private Process process;
    private Path log;
    private int incarnation;

    ReplicaProcess(String id, Path dataDir, int nbdPort, int adminPort, List<String> command,
                   Map<String, String> environment) {
        this.id = id;
        this.dataDir = dataDir;
        this.nbdPort = nbdPort;
        this.adminPort = adminPort;
        this.command = command;
        this.environment = environment;
    }

    /**
     * A member on {@code dataDir} with the given ports, backing {@code default=backingUri}, and {@code config} lines.
     */
    static ReplicaProcess of(String id, Path dataDir, String peers, String backingUri, int nbdPort, int adminPort,
                             String config, Map<String, String> environment, String... moreArgs) throws IOException {
        Path configFile = dataDir.resolveSibling(dataDir.getFileName() + ".properties");
        Files.writeString(configFile, config);
        String java = ProcessHandle.current().info().command().orElseThrow();
        List<String> command = new java.util.ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path"),
                "io.blockcache.cli.Main", "serve", "--node-id", id, "--peers", peers, "--data-dir", dataDir.toString(),
                "--backing", "default=" + backingUri, "--cache-size", "64M",
                "--nbd-listen", "127.0.0.1:" + nbdPort, "--admin-listen", "127.0.0.1:" + adminPort,
                "--config", configFile.toString()));
        command.addAll(List.of(moreArgs));
        return new ReplicaProcess(id, dataDir, nbdPort, adminPort, command, environment);
    }

    /** Starts a new incarnation (its log in a new file). */
    void start() throws IOException {
        incarnation++;
        log = dataDir.resolveSibling(dataDir.getFileName() + "-" + incarnation + ".err");
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        builder.environment().remove("NOTIFY_SOCKET");
        builder.environment().putAll(environment);
        process = builder.start();
    }

    boolean alive() {
        return process != null && process.isAlive();
    }

    /** How many times this incarnation said it serves. */
    int servingCount() throws IOException {
        Matcher m = SERVING.matcher(log());
        int count = 0;
        while (m.find()) {
            count++;
        }
        return count;
    }

    /** True if this incarnation's last word on serving is that it serves (not that it stopped). */
    boolean serves() throws IOException {
        String text = log();
        int served = -1;
        Matcher m = SERVING.matcher(text);
        while (m.find()) {
            served = m.start();
        }
        return served >= 0 && text.lastIndexOf("stops serving") < served;
    }

    /** True once this incarnation said whom it follows (it hears the leader). */
    boolean follows() throws IOException {
        return log().contains("following ");
    }

    /** This incarnation's log so far. */
    String log() throws IOException {
        return log == null || !Files.exists(log) ? "" : Files.readString(log);
    }

    /** SIGSTOP: the process freezes (a VM pause, a long stall, a partition that heals as if nothing happened). */
    void freeze() throws IOException, InterruptedException {
        signal("-STOP");
    }

    /** SIGCONT after {@link #freeze}; nothing if not running. */
    void resume() throws InterruptedException {
        if (alive()) {
            try {
                signal("-CONT");
            } catch (IOException e) {
                throw new AssertionError("cannot resume member " + id, e);
            }
        }
    }

    private void signal(String which) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", which, Long.toString(process.pid())).inheritIO().start();
        if (!kill.waitFor(EXIT_WAIT_SECONDS, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IOException("kill " + which + " " + process.pid() + " failed");
        }
    }

    /** SIGKILL and wait. */
    void killMinusNine() throws InterruptedException {
        if (process == null) {
            return;
        }
        process.destroyForcibly();
        if (!process.waitFor(EXIT_WAIT_SECONDS, TimeUnit.SECONDS)) {
            throw new AssertionError("member " + id + " did not die after SIGKILL");
        }
    }

    /** SIGTERM and wait; SIGKILL if it does not end in time. */
    void stop() throws InterruptedException {
        if (process == null || !process.isAlive()) {
            return;
        }
        process.destroy();
        if (!process.waitFor(EXIT_WAIT_SECONDS, TimeUnit.SECONDS)) {
            killMinusNine();
        }
    }
}
