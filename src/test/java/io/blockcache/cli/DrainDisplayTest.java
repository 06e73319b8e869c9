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
        // Proves the progress line: bytes left and written in binary units, the rate, an ETA rounded up, or unknown.
        assertThat(DrainDisplay.line("default", drain(3 << 20, 1 << 20, 2 << 20, 1500)))
                .isEqualTo("drain default: 3.0 MiB left, 1.0 MiB written back at 2.0 MiB/s, ETA 0:02");
        assertThat(DrainDisplay.line("v", drain(4096, 0, 0, -1)))
                .isEqualTo("drain v: 4.0 KiB left, 0 B written back, ETA unknown");
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
        assertThat(log.toString().lines()).containsExactly("drain v: 1.0 KiB left, 0 B written back, ETA unknown",
                "drain v: 256 B left, 768 B written back at 512 B/s, ETA 0:01");

        StringWriter terminal = new StringWriter();
        DrainDisplay toTerminal = new DrainDisplay(new PrintWriter(terminal), true);
        toTerminal.show("v", drain(1024, 0, 0, -1), 0);
        toTerminal.show("v", drain(512, 512, 512, 1000), 1);
        toTerminal.clear();
        assertThat(terminal.toString()).startsWith("\rdrain v: 1.0 KiB left").contains("\rdrain v: 512 B left")
                .endsWith(System.lineSeparator());
        assertThat(terminal.toString().split(System.lineSeparator(), -1)).as("one line, ended once").hasSize(2);
    }
}
