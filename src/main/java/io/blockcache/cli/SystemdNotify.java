package io.blockcache.cli;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Tells systemd that {@code serve} is ready (a {@code Type=notify} unit: packaging/blockcache.service) by running
 * {@code systemd-notify --pid=PID READY=1 STATUS=...} when {@code NOTIFY_SOCKET} is set; does nothing otherwise.
 *
 * <p>Why a child process: the notify socket is a Unix <em>datagram</em> socket, and the JDK's Unix-domain
 * support ({@code UnixDomainSocketAddress}, JDK 16) covers stream sockets only; the foreign-memory API that could
 * call {@code sendmsg} is final only from JDK 22, and we target 21. {@code systemd-notify} sends from its own PID,
 * which is why the unit says {@code NotifyAccess=all}, and names ours with {@code MAINPID=} ({@code --pid}).
 * Since systemd 246 it then waits on a notify barrier until the manager has read the message, so the message is
 * attributed to the unit even though the sender exits at once (systemd commit 12705693, "Introduce
 * sd_notify_barrier", fixing https://github.com/systemd/systemd/issues/2739; systemd-notify(1), {@code --no-block}).
 *
 * <p>Thread rule: any thread; {@link #notify} blocks for at most {@link #WAIT}.
 */
final class SystemdNotify {
    /** How long a notification may take before serve gives up on it (systemd's own barrier waits 5 s). */
    static final Duration WAIT = Duration.ofSeconds(10);

    private final String socket;
    private final String tool;

    /**
     * @param socket the notify socket ({@code NOTIFY_SOCKET}: a path, or {@code @name} in the abstract namespace),
     *     or null when not run by systemd
     * @param tool the {@code systemd-notify} command to run
     */
    SystemdNotify(String socket, String tool) {
        this.socket = socket == null || socket.isBlank() ? null : socket;
        this.tool = tool;
    }

    /** From the environment, as systemd starts the service. */
    static SystemdNotify fromEnvironment() {
        return new SystemdNotify(System.getenv("NOTIFY_SOCKET"), "systemd-notify");
    }

    /** True if systemd asked for notifications. */
    boolean enabled() {
        return socket != null;
    }

    /**
     * Sends {@code assignments} (e.g. {@code READY=1}, {@code STATUS=serving}) from this process.
     *
     * @return null if sent (or notifications are off), else one line saying why not
     */
    String notify(String... assignments) {
        if (socket == null) {
            return null;
        }
        List<String> command = new ArrayList<>(List.of(tool, "--pid=" + ProcessHandle.current().pid()));
        command.addAll(List.of(assignments));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD);
        builder.environment().put("NOTIFY_SOCKET", socket);
        try {
            Process process = builder.start();
            if (!process.waitFor(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                return tool + " did not finish within " + WAIT.toSeconds() + " s";
            }
            return process.exitValue() == 0 ? null : tool + " failed with exit code " + process.exitValue();
        } catch (IOException e) {
            return "cannot run " + tool + ": " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted while running " + tool;
        }
    }
}
