package io.blockcache.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The event log's lines, driven by hand with a fake clock: formats, journal prefixes, the flood limit. */
class EventLogTest {
    private static final Instant T = Instant.parse("2026-12-07T20:30:00Z");
    private final StringWriter text = new StringWriter();
    private final AtomicLong nowNs = new AtomicLong(1_000);

    private EventLog log(LogFormat format, JournalPriority journal) {
        return new EventLog(new PrintWriter(text), format, journal, nowNs::get, () -> T);
    }

    private List<String> lines() {
        return text.toString().lines().toList();
    }

    @Test
    void jsonLinesCarryTimeLevelEventMessageAndTypedFields() {
        // Proves the JSON format: one object a line, numbers as numbers, a line break in a message kept on one line.
        EventLog log = log(LogFormat.JSON, JournalPriority.of(null, null));
        log.log(LogEvent.of(JournalPriority.Level.INFO, "drain.restored", "drain of default\nresumed")
                .with("volume", "default").with("bytes", 4096L));
        Map<?, ?> line = (Map<?, ?>) JsonReader.parse(lines().get(0));
        assertThat(lines()).hasSize(1);
        assertThat(line.get("time")).isEqualTo("2026-12-07T20:30:00Z");
        assertThat(line.get("level")).isEqualTo("info");
        assertThat(line.get("event")).isEqualTo("drain.restored");
        assertThat(line.get("message")).isEqualTo("drain of default|resumed");
        assertThat(line.get("volume")).isEqualTo("default");
        assertThat(((Number) line.get("bytes")).longValue()).isEqualTo(4096L);
    }

    @Test
    void textLinesKeepTheMessageThenTheFieldsInLogfmt() {
        // Proves the text format: the human message first, then event, level and fields, quoted where needed.
        EventLog log = log(LogFormat.TEXT, JournalPriority.of(null, null));
        log.log(LogEvent.of(JournalPriority.Level.WARNING, "nbd.client", "peer refused")
                .with("peer", "127.0.0.1:5").with("why", "a b"));
        assertThat(lines()).containsExactly(
                "blockcache serve: peer refused [event=nbd.client level=warning peer=127.0.0.1:5 why=\"a b\"]");
    }

    @Test
    void underTheJournalEveryLineStartsWithItsSyslogPriority() {
        // Proves the sd-daemon(3) prefixes: <3> error, <4> warning, <6> info, in front of text and of JSON alike.
        EventLog log = log(LogFormat.JSON, JournalPriority.of("8:12", "8:12"));
        log.error("serve.start_failed", "e");
        log.warning("nbd.client", "w");
        log.info("host.open", "i");
        assertThat(lines()).hasSize(3);
        assertThat(lines().get(0)).startsWith("<3>{").contains("\"level\":\"error\"");
        assertThat(lines().get(1)).startsWith("<4>{").contains("\"level\":\"warning\"");
        assertThat(lines().get(2)).startsWith("<6>{").contains("\"level\":\"info\"");
    }

    @Test
    void aFloodOfOneEventIsCutToItsShareAndTheRestIsCountedOnceTheWindowIsOver() {
        // Proves the flood limit by hand: 25 lines of one event in a window write 10 and count 15; another event
        // still writes; after the window the next line first reports "suppressed 15", and the event writes again.
        EventLog log = log(LogFormat.TEXT, JournalPriority.of(null, null));
        for (int i = 0; i < 25; i++) {
            log.warning("nbd.client", "flood " + i);
        }
        log.info("host.open", "other");
        assertThat(lines()).hasSize(FloodLimit.LINES_PER_WINDOW_MAX + 1);
        assertThat(lines().get(9)).startsWith("blockcache serve: flood 9 ");
        assertThat(lines().get(10)).startsWith("blockcache serve: other ");

        nowNs.addAndGet(FloodLimit.WINDOW_NS);
        log.warning("nbd.client", "after");
        assertThat(lines().subList(11, 13)).containsExactly("blockcache serve: suppressed 15 lines of nbd.client"
                + " (at most 10 per 10 s per event; the counters in /api/stats count all) [event=log.suppressed"
                + " level=warning of=nbd.client suppressed=15]",
                "blockcache serve: after [event=nbd.client level=warning]");
    }

    @Test
    void countsNotYetReportedAreWrittenAtClose() {
        // Proves a flood that ends with the process is still reported: close writes its count.
        EventLog log = log(LogFormat.JSON, JournalPriority.of(null, null));
        for (int i = 0; i < 12; i++) {
            log.warning("admin.refused", "r");
        }
        log.close();
        Map<?, ?> last = (Map<?, ?>) JsonReader.parse(lines().get(lines().size() - 1));
        assertThat(last.get("event")).isEqualTo("log.suppressed");
        assertThat(last.get("of")).isEqualTo("admin.refused");
        assertThat(((Number) last.get("suppressed")).longValue()).isEqualTo(2);
    }
}
