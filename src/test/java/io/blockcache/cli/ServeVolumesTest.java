package io.blockcache.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blockcache.nbd.NbdTestClient;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code volume remove} on a running serve when the detach fails after the volume was closed. */
class ServeVolumesTest {
    private static final long WAIT_SECONDS = 30;

    @TempDir
    Path dir;
    private ServeRuntime runtime;
    private final StringWriter err = new StringWriter();

    @AfterEach
    void tearDown() {
        if (runtime != null) {
            runtime.stop();
        }
    }

    @Test
    void aVolumeClosedByAFailedRemovalIsNotExportedAgainAndSaysSo() throws Exception {
        // Proves: a removal that fails after closing the volume (its backing file deleted, so the last flush is
        // refused) leaves it unexported — a new client cannot open it, a connected one is disconnected — with one
        // host.volume.detach_failed error (volume, reason) in the JSON log and state "closed" in volume list.
        PrintWriter writer = new PrintWriter(err, true);
        EventLog log = new EventLog(writer, LogFormat.JSON, JournalPriority.of(null, null), System::nanoTime,
                Instant::now).start(); // its writer thread: the test reads the log while serve runs
        Path v2 = dir.resolve("v2.img");
        runtime = ServeRuntime.start(ServeSettings.resolve("--data-dir", dir.resolve("data").toString(),
                "--cache-size", "64M", "--backing-size", "16M", "--backing", "default=" + dir.resolve("d.img"),
                "--backing", "v2=" + v2, "--nbd-listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0"),
                false, writer, log);
        InetSocketAddress nbd = new InetSocketAddress("127.0.0.1", runtime.nbdAddress().getPort());
        String admin = "127.0.0.1:" + runtime.adminAddress().getPort();
        try (NbdTestClient connected = new NbdTestClient(nbd).readTimeoutMs(20_000)) {
            connected.go("v2", false);
            Files.delete(v2);
            assertThat(awaitEvent("device.degraded").get("volume")).isEqualTo("v2");

            CliRun removed = CliRun.of("volume", "remove", "v2", "--admin", admin);
            assertThat(removed.exitCode()).as(removed.err()).isEqualTo(1);
            assertThat(removed.err()).contains("flushing its backing store failed");
            Map<?, ?> failed = awaitEvent("host.volume.detach_failed");
            assertThat(failed.get("level")).isEqualTo("error");
            assertThat(failed.get("volume")).isEqualTo("v2");
            assertThat(String.valueOf(failed.get("reason"))).contains("flushing its backing store failed");
            assertThat(connected.serverClosed()).as("the closed volume's client is disconnected").isTrue();
        }
        try (NbdTestClient late = new NbdTestClient(nbd)) {
            assertThatThrownBy(() -> late.go("v2", false)).isInstanceOf(IOException.class);
        }
        try (NbdTestClient other = new NbdTestClient(nbd)) {
            other.go("default", false); // the other volume is served as before
        }
        CliRun list = CliRun.of("volume", "list", "--json", "--admin", admin);
        assertThat(list.exitCode()).as(list.err()).isZero();
        List<?> volumes = (List<?>) ((Map<?, ?>) JsonReader.parse(list.out())).get("volumes");
        assertThat(volumes).extracting(v -> ((Map<?, ?>) v).get("name") + "=" + ((Map<?, ?>) v).get("state"))
                .containsExactly("default=open", "v2=closed");
    }

    /** Waits (bounded) for the first JSON line of {@code event} in serve's log. */
    private Map<?, ?> awaitEvent(String event) throws InterruptedException {
        long endNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (true) {
            String text;
            synchronized (err.getBuffer()) {
                text = err.toString();
            }
            for (String line : text.lines().toList()) {
                Map<?, ?> parsed = (Map<?, ?>) JsonReader.parse(line);
                if (event.equals(parsed.get("event"))) {
                    return parsed;
                }
            }
            assertThat(System.nanoTime()).as("no " + event + " within " + WAIT_SECONDS + " s:\n" + text)
                    .isLessThan(endNs);
            Thread.sleep(20); // polls the log thread's output, bounded by the deadline
        }
    }
}
