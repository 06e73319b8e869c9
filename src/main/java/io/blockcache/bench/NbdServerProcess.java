package io.blockcache.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One NBD server under test as a child process listening on 127.0.0.1: started from a command line, ready
 * once its port accepts a TCP connection, stopped with SIGTERM (SIGKILL if it lingers).
 */
final class NbdServerProcess implements AutoCloseable {
    /** How long a server may take to listen: blockcache formats its cache file first. */
    private static final Duration READY_WAIT_MAX = Duration.ofSeconds(120);
    private static final long POLL_PERIOD_MS = 100;
    private static final long STOP_WAIT_SECONDS = 60;

    private final String name;
    private final Process process;
    private final String uri;
    private final List<String> command;
    private final ServeAdmin admin;
    private final ProcessMeter meter;

    private NbdServerProcess(String name, Process process, String uri, List<String> command, ServeAdmin admin) {
        this.name = name;
        this.process = process;
        this.uri = uri;
        this.command = command;
        this.admin = admin;
        this.meter = new ProcessMeter(process.pid());
    }

    /** A TCP port on 127.0.0.1 that was free a moment ago (the server binds it next; a race we accept). */
    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /**
     * Starts {@code command} (output to {@code log}) and waits until 127.0.0.1:{@code port} accepts.
     *
     * @throws IOException if the process exits or does not listen within {@link #READY_WAIT_MAX}; the message
     *                     holds the tail of its log
     */
    static NbdServerProcess start(String name, List<String> command, int port, String exportName, Path log)
            throws IOException, InterruptedException {
        return start(name, command, port, exportName, log, null);
    }

    /** As {@link #start(String, List, int, String, Path)}, for a blockcache serve whose admin API is {@code admin}. */
    static NbdServerProcess start(String name, List<String> command, int port, String exportName, Path log,
                                  ServeAdmin admin) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        long deadlineNs = System.nanoTime() + READY_WAIT_MAX.toNanos();
        while (System.nanoTime() < deadlineNs) {
            if (!process.isAlive()) {
                throw new IOException(name + " exited with " + process.exitValue() + ": " + command + "\n"
                        + Files.readString(log));
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
                return new NbdServerProcess(name, process, "nbd://127.0.0.1:" + port + "/" + exportName, command,
                        admin);
            } catch (IOException notYet) {
                Thread.sleep(POLL_PERIOD_MS); // benchmark harness, not engine code: polling a child is fine here
            }
        }
        process.destroyForcibly();
        throw new IOException(name + " did not listen on port " + port + " within " + READY_WAIT_MAX + "\n"
                + Files.readString(log));
    }

    /** The server's name in results ({@code blockcache}, {@code nbdkit-file}, {@code qemu-nbd}). */
    String name() {
        return name;
    }

    /** The NBD URI fio connects to. */
    String uri() {
        return uri;
    }

    /** The exact command line it runs (printed in the report so results can be reproduced). */
    List<String> command() {
        return command;
    }

    /** The admin API of a blockcache serve; null for the other servers. */
    ServeAdmin admin() {
        return admin;
    }

    /** CPU time and peak RSS of the server process. */
    ProcessMeter meter() {
        return meter;
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(STOP_WAIT_SECONDS, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(STOP_WAIT_SECONDS, TimeUnit.SECONDS);
        }
    }
}
