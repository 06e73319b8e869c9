package io.blockcache.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DrainDisplayTest {
    private static Map<String, Object> drain(double left, double written, double rate, double etaMs) {
        Map<String, Object> drain = new HashMap<>();
        drain.put("dirtyBytesLeft", left);
        drain.put("writtenBackBytes", written);
        drain.put("bytesPerSecond", rate);
        drain.put("etaMs", etaMs);
        return drain;
    }

    @Test
    void lineSaysWhatIsLeftTheRateAndTheEta() {
        // Proves the progress line: a bar of the share written back, bytes left and written in binary units, the
        // rate, an ETA rounded up, or unknown; and the job's state, cap, deadline, restart and warning when given.
        assertThat(DrainDisplay.line("default", drain(3 << 20, 1 << 20, 2 << 20, 1500))).isEqualTo("drain default: "
                + "[#####---------------]  25%, 3.0 MiB left, 1.0 MiB written back at 2.0 MiB/s, ETA 0:02");
        assertThat(DrainDisplay.line("v", drain(4096, 0, 0, -1)))
                .isEqualTo("drain v: [--------------------]   0%, 4.0 KiB left, 0 B written back, ETA unknown");
        Map<String, Object> job = drain(1 << 20, 3 << 20, 0, -1);
        job.put("state", "paused");
        job.put("rateMaxBytesPerSecond", 1048576.0);
        job.put("deadlineInMs", 3_600_000.0);
        job.put("restored", true);
        job.put("deadlineWarning", "paused: the deadline needs 0.0 MiB/s and the need grows while paused");
        assertThat(DrainDisplay.line("v", job)).isEqualTo("drain v: paused [###############-----]  75%, 1.0 MiB left,"
                + " 3.0 MiB written back, ETA unknown, cap 1.0 MiB/s, deadline in 1:00:00, taken up after a restart;"
                + " paused: the deadline needs 0.0 MiB/s and the need grows while paused");
        Map<String, Object> finishing = drain(0, 4 << 20, 1 << 20, 0);
        finishing.put("state", "running");
        finishing.put("finishing", true);
        assertThat(DrainDisplay.line("v", finishing)).startsWith("drain v: finishing [####################] 100%,");
        assertThat(DrainDisplay.duration(3_723_000)).isEqualTo("1:02:03");
        assertThat(DrainDisplay.duration(61_000)).isEqualTo("1:01");
    }

    @Test
    void logOutputIsThrottledAndTerminalOutputRewritesOneLine() {
        // Proves a log gets a line at most every LOG_INTERVAL_NS, a terminal one line rewritten with \r and ended.
        StringWriter log = new StringWriter();
        DrainDisplay toLog = new DrainDisplay(new PrintWriter(log), false);
        toLog.show("v", drain(1024, 0, 0, -1), 0);
        toLog.show("v", drain(512, 512, 512, 1000), DrainDisplay.LOG_INTERVAL_NS - 1);
        toLog.show("v", drain(256, 768, 512, 500), DrainDisplay.LOG_INTERVAL_NS);
        assertThat(log.toString().lines()).containsExactly(
                "drain v: [--------------------]   0%, 1.0 KiB left, 0 B written back, ETA unknown",
                "drain v: [###############-----]  75%, 256 B left, 768 B written back at 512 B/s, ETA 0:01");

        StringWriter terminal = new StringWriter();
        DrainDisplay toTerminal = new DrainDisplay(new PrintWriter(terminal), true);
        toTerminal.show("v", drain(1024, 0, 0, -1), 0);
        toTerminal.show("v", drain(512, 512, 512, 1000), 1);
        toTerminal.clear();
        assertThat(terminal.toString()).startsWith("\rdrain v: [---")
                .contains("\rdrain v: [##########----------]  50%, 512 B left")
                .endsWith(System.lineSeparator());
        assertThat(terminal.toString().split(System.lineSeparator(), -1)).as("one line, ended once").hasSize(2);
    }

    @Test
    void limitsBecomeAQueryAndDurationsParse() {
        // Proves the CLI's limits: SIZE/s in binary units, durations in h/m/s, both as the API's query; nonsense
        // fails.
        assertThat(DrainCommand.query("50M/s", "1h30m"))
                .isEqualTo("?rateMaxBytesPerSecond=52428800&deadlineSeconds=5400");
        assertThat(DrainCommand.query(null, "90")).isEqualTo("?deadlineSeconds=90");
        assertThat(DrainCommand.query("4k", null)).isEqualTo("?rateMaxBytesPerSecond=4096");
        assertThat(DrainCommand.query(null, null)).isEmpty();
        assertThat(Durations.parseSeconds("2h")).isEqualTo(7200);
        assertThat(Durations.parseSeconds("45s")).isEqualTo(45);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Durations.parseSeconds("1m1m"))
                .hasMessageContaining("not a duration");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Durations.parseSeconds("soon"))
                .hasMessageContaining("examples: 90, 45s, 30m, 2h, 1h30m");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> DrainCommand.query("fast", null))
                .hasMessageContaining("not a size");
    }
}
