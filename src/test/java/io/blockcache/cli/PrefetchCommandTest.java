package io.blockcache.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.admin.RunningCacheSet;
import io.blockcache.volume.Volume;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code blockcache prefetch} against a server: the warm-up, its report, and what the server refuses. */
class PrefetchCommandTest {
    private static final long MIB = 1 << 20;
    private RunningCacheSet cache;
    private String admin;

    @BeforeEach
    void start() throws Exception {
        cache = new RunningCacheSet();
        admin = cache.adminHostPort();
    }

    @AfterEach
    void stop() {
        cache.close();
    }

    @Test
    void aPrefetchFillsTheRangeAndSaysWhatItDid() throws Exception {
        // Proves the command end to end: 2 MiB at 1 MiB are filled (the volume's fill counter moves by exactly that),
        // the summary says so, and a second run finds it all cached and prints the API's JSON with --json.
        Volume volume = cache.set.volume("default");
        long filledBefore = volume.stats().fillSectors();
        CliRun run = CliRun.of("prefetch", "default", "--offset", "1M", "--length", "2M", "--rate-max", "64M/s",
                "--admin", admin);
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).isEqualTo("default: prefetch #1 done, 2.0 MiB of 2.0 MiB walked: 2.0 MiB filled,"
                + " 0 B already cached, 0 B left to newer writes" + System.lineSeparator());
        assertThat(run.err()).contains("prefetch default: 100%");
        assertThat((volume.stats().fillSectors() - filledBefore) * 512).isEqualTo(2 * MIB);

        CliRun again = CliRun.of("prefetch", "default", "--offset", "1M", "--length", "2M", "--json", "--admin", admin);
        assertThat(again.exitCode()).as(again.err()).isZero();
        Map<?, ?> status = (Map<?, ?>) JsonReader.parse(again.out());
        assertThat(status.get("state")).isEqualTo("done");
        assertThat(((Number) status.get("id")).longValue()).isEqualTo(2);
        assertThat(((Number) status.get("cachedBytes")).longValue()).isEqualTo(2 * MIB);
        assertThat(((Number) status.get("filledBytes")).longValue()).isZero();
        assertThat(again.err()).as("no progress line with --json").isEmpty();
    }

    @Test
    void badRequestsAreRefusedAndARunningPrefetchIsCancelled() throws Exception {
        // Proves the refusals (unknown volume, a range not in whole sectors, a second prefetch while one runs) each
        // exit 1 with the server's reason, and that --cancel stops a slow prefetch, which then reports "cancelled".
        CliRun unknown = CliRun.of("prefetch", "nope", "--admin", admin);
        assertThat(unknown.exitCode()).isEqualTo(1);
        assertThat(unknown.err()).contains("no volume \"nope\"");
        CliRun misaligned = CliRun.of("prefetch", "default", "--offset", "100", "--admin", admin);
        assertThat(misaligned.exitCode()).isEqualTo(1);
        assertThat(misaligned.err()).contains("whole 512-byte sectors");
        CliRun badRate = CliRun.of("prefetch", "default", "--rate-max", "fast", "--admin", admin);
        assertThat(badRate.exitCode()).isEqualTo(1);
        assertThat(badRate.err()).contains("not a size per second");

        CliRun slow = CliRun.of("prefetch", "default", "--rate-max", "64K/s", "--detach", "--admin", admin);
        assertThat(slow.exitCode()).as(slow.err()).isZero();
        assertThat(slow.out()).isEqualTo("default: prefetch #1 started" + System.lineSeparator());
        CliRun second = CliRun.of("prefetch", "default", "--admin", admin);
        assertThat(second.exitCode()).isEqualTo(1);
        assertThat(second.err()).contains("prefetch #1 is running");
        CliRun cancel = CliRun.of("prefetch", "default", "--cancel", "--admin", admin);
        assertThat(cancel.exitCode()).as(cancel.err()).isZero();
        assertThat(cancel.out()).isEqualTo("default: prefetch #1 stops after its chunk" + System.lineSeparator());
        long deadlineNs = System.nanoTime() + 10_000_000_000L; // polled: the loop sees the cancel at its next chunk
        String state = "";
        while (System.nanoTime() < deadlineNs && !state.contains("\"cancelled\"")) {
            state = cache.get("/api/volumes/default/prefetch");
            java.util.concurrent.locks.LockSupport.parkNanos(10_000_000L);
        }
        assertThat(state).contains("\"state\":\"cancelled\"");
        CliRun next = CliRun.of("prefetch", "default", "--length", "1M", "--admin", admin);
        assertThat(next.exitCode()).as("a new one may start once it ended: " + next.err()).isZero();
        assertThat(next.out()).startsWith("default: prefetch #2 done");
    }
}
