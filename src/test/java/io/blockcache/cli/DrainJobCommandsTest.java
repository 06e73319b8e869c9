package io.blockcache.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.admin.RunningCacheSet;
import io.blockcache.device.IoResult;
import io.blockcache.writeback.DrainJob;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code drain --rate-max/--deadline/--detach} and {@code drain pause|resume|cancel|status} against a server. */
class DrainJobCommandsTest {
    private RunningCacheSet cache;
    private String admin;

    @BeforeEach
    void start() throws Exception {
        cache = new RunningCacheSet();
        admin = cache.adminHostPort();
        for (int i = 0; i < 16; i++) {
            assertThat(cache.write((long) i * (128 << 10), 64 << 10)).isEqualTo(IoResult.OK);
        }
    }

    @AfterEach
    void stop() {
        cache.close();
    }

    private DrainJob job() throws Exception {
        return cache.<DrainJob>onLoop(done -> done.accept(cache.set.writeback("default").drainJob()));
    }

    @Test
    void aDetachedCappedDrainIsPausedResumedAndCancelledFromTheCommandLine() throws Exception {
        // Proves the control commands: --detach returns with the job running under its cap, status shows the bar and
        // the cap, pause/resume/cancel answer with the new state (without --volume: every volume with a job), and a
        // second cancel fails with the server's reason.
        CliRun started = CliRun.of("drain", "--volume", "default", "--rate-max", "64K/s", "--detach", "--admin", admin);
        assertThat(started.exitCode()).as(started.err()).isZero();
        assertThat(started.out()).isEqualTo("default: drain #1 running" + System.lineSeparator());
        assertThat(job().limits().rateMaxBytesPerSecond()).isEqualTo(64 << 10);
        CliRun status = CliRun.of("drain", "status", "--admin", admin);
        assertThat(status.exitCode()).isZero();
        assertThat(status.out()).startsWith("default: drain #1 running [").contains("%, ", " left, ", "cap 64.0 KiB/s");

        CliRun paused = CliRun.of("drain", "pause", "--admin", admin);
        assertThat(paused.exitCode()).as(paused.err()).isZero();
        assertThat(paused.out()).isEqualTo("default: drain #1 paused" + System.lineSeparator());
        assertThat(CliRun.of("drain", "status", "--volume", "default", "--admin", admin).out())
                .startsWith("default: drain #1 paused [").contains("ETA unknown");
        assertThat(CliRun.of("drain", "resume", "--volume", "default", "--admin", admin).out())
                .isEqualTo("default: drain #1 running" + System.lineSeparator());
        CliRun cancelled = CliRun.of("drain", "cancel", "--volume", "default", "--admin", admin);
        assertThat(cancelled.out()).isEqualTo("default: drain #1 cancelled" + System.lineSeparator());
        assertThat(CliRun.of("drain", "status", "--admin", admin).out())
                .startsWith("default: drain #1 cancelled: drain cancelled; ");

        CliRun again = CliRun.of("drain", "cancel", "--volume", "default", "--admin", admin);
        assertThat(again.exitCode()).isEqualTo(1);
        assertThat(again.err()).isEqualTo("blockcache drain cancel: volume \"default\": no drain of this volume to"
                + " cancel (the last one is cancelled)" + System.lineSeparator());
        CliRun none = CliRun.of("drain", "pause", "--admin", admin);
        assertThat(none.exitCode()).isEqualTo(1);
        assertThat(none.err()).contains("no drain of this volume to pause");
    }

    @Test
    void aWaitingDrainExitsOneWithTheReasonWhenCancelled() throws Exception {
        // Proves a drain the command waits for, cancelled from elsewhere, ends the command with exit 1 and one line
        // saying so; the dirty data stays dirty.
        CompletableFuture<CliRun> waiting = CompletableFuture.supplyAsync(() ->
                CliRun.of("drain", "--volume", "default", "--rate-max", "16K/s", "--admin", admin));
        cache.awaitOnLoop(() -> cache.set.writeback("default").drainJob() != null);
        CliRun cancel = CliRun.of("drain", "cancel", "--admin", admin);
        assertThat(cancel.exitCode()).as(cancel.err()).isZero();
        CliRun run = waiting.get(30, TimeUnit.SECONDS);
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.err().lines().filter(line -> line.startsWith("blockcache drain:")))
                .singleElement().asString().matches("blockcache drain: volume default: drain cancelled; [0-9]+ dirty"
                        + " bytes stay in the cache");
        assertThat(run.out()).isEmpty();
        assertThat(cache.<Long>onLoop(done -> done.accept(cache.set.writeback("default").dirtyBytes()))).isPositive();
    }

    @Test
    void anImpossibleDeadlineIsRefusedWithTheRateItNeeds() throws Exception {
        // Proves the refusal reaches the operator in one line with the needed rate: 1 MiB in 1 s under a 64 KiB/s cap.
        CliRun run = CliRun.of("drain", "--volume", "default", "--rate-max", "64K/s", "--deadline", "1s",
                "--admin", admin);
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.err()).matches("blockcache drain: deadline cannot be met: 1.0 MiB dirty in 1.0 s needs"
                + " 1.0 MiB/s, more than the drain's rate cap of 0.1 MiB/s\\R");
        assertThat(job()).isNull();
        CliRun bad = CliRun.of("drain", "--deadline", "tomorrow", "--admin", admin);
        assertThat(bad.exitCode()).isEqualTo(1);
        assertThat(bad.err()).contains("not a duration: \"tomorrow\"");
    }
}
