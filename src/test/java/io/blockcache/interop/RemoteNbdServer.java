package io.blockcache.interop;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * An NBD server the tests use as a remote backing store ({@code nbdkit} or {@code qemu-nbd}), a child process on
 * 127.0.0.1 and a port that was free a moment ago; ready once the port accepts, killed on close.
 */
final class RemoteNbdServer implements AutoCloseable {
    /** How long a server may take to listen. */
    private static final long READY_WAIT_NS_MAX = TimeUnit.SECONDS.toNanos(30);
    private static final long POLL_PERIOD_MS = 50;

    private final List<String> command;
    private final int port;
    private final Path log;
    private Process process;

    private RemoteNbdServer(List<String> command, int port, Path log) {
        this.command = command;
        this.port = port;
        this.log = log;
    }

    /** {@code nbdkit [--filter=F ...] memory SIZE [ARGS]} with export name ignored (any name works). */
    static RemoteNbdServer nbdkit(Path dir, List<String> pluginAndArgs) throws IOException, InterruptedException {
        ExternalTool.require("nbdkit");
        int port = freePort();
        List<String> command = new ArrayList<>(List.of("nbdkit", "--foreground", "--exit-with-parent", "--ipaddr",
                "127.0.0.1", "--port", Integer.toString(port)));
        command.addAll(pluginAndArgs);
        RemoteNbdServer server = new RemoteNbdServer(command, port, dir.resolve("nbdkit-" + port + ".log"));
        server.start();
        return server;
    }

    /** {@code qemu-nbd} exporting {@code file} (raw) as export {@code name}. */
    static RemoteNbdServer qemuNbd(Path dir, Path file, String name) throws IOException, InterruptedException {
        ExternalTool.require("qemu-nbd");
        int port = freePort();
        List<String> command = List.of("qemu-nbd", "--format=raw", "--persistent", "--shared=8", "--bind=127.0.0.1",
                "--port=" + port, "--export-name=" + name, file.toString());
        RemoteNbdServer server = new RemoteNbdServer(command, port, dir.resolve("qemu-nbd-" + port + ".log"));
        server.start();
        return server;
    }

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /** Starts (or restarts, on the same port) the server and waits until it accepts connections. */
    void start() throws IOException, InterruptedException {
        process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        long deadlineNs = System.nanoTime() + READY_WAIT_NS_MAX;
        while (System.nanoTime() < deadlineNs) {
            if (!process.isAlive()) {
                throw new IOException("exited with " + process.exitValue() + ": " + command + "\n"
                        + Files.readString(log));
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
                return;
            } catch (IOException notYet) {
                Thread.sleep(POLL_PERIOD_MS); // polling a child process for readiness, bounded by the deadline
            }
        }
        process.destroyForcibly();
        throw new IOException("did not listen on " + port + ": " + command + "\n" + Files.readString(log));
    }

    /** Kills the server (SIGKILL) and waits for it to be gone. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    int port() {
        return port;
    }

    /** The URI of export {@code name}. */
    String uri(String name) {
        return "nbd://127.0.0.1:" + port + "/" + name;
    }

    @Override
    public void close() throws InterruptedException {
        kill();
    }
}
