package io.blockcache.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blockcache.log.EventName;
import io.blockcache.log.Level;
import io.blockcache.log.LogEvent;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The event log's lines, driven by hand with a fake clock: formats, journal prefixes, the flood limit. */
class EventLogTest {
    private static final Instant T = Instant.parse("2026-12-07T20:30:00Z");
    private static final long WAIT_NS = TimeUnit.SECONDS.toNanos(20);
    private final StringWriter text = new StringWriter();
    private final AtomicLong nowNs = new AtomicLong(1_000);

    private EventLog log(LogFormat format, JournalPriority journal) {
        return new EventLog(new PrintWriter(text), format, journal, nowNs::get, () -> T);
    }

    private List<String> lines() {
        synchronized (text.getBuffer()) {
            return text.toString().lines().toList();
        }
    }

    @Test
    void jsonLinesCarryTimeLevelEventMessageAndTypedFields() {
        // Proves the JSON format: one object a line, numbers as numbers, a line break in a message kept on one line.
        EventLog log = log(LogFormat.JSON, JournalPriority.of(null, null));
        log.now(LogEvent.of(EventName.DRAIN_DONE, "drain of default\ndone")
                .with("volume", "default").with("bytes", 4096L));
        Map<?, ?> line = (Map<?, ?>) JsonReader.parse(lines().get(0));
        assertThat(lines()).hasSize(1);
        assertThat(line.get("time")).isEqualTo("2026-12-07T20:30:00Z");
        assertThat(line.get("level")).isEqualTo("info");
        assertThat(line.get("event")).isEqualTo("drain.done");
        assertThat(line.get("message")).isEqualTo("drain of default|done");
        assertThat(line.get("volume")).isEqualTo("default");
        assertThat(((Number) line.get("bytes")).longValue()).isEqualTo(4096L);
    }

    @Test
    void textLinesKeepTheMessageThenTheFieldsInLogfmt() {
        // Proves the text format: the human message first, then event, level and fields, quoted where needed.
        EventLog log = log(LogFormat.TEXT, JournalPriority.of(null, null));
        log.now(LogEvent.of(EventName.DRAIN_FAILED, "drain failed")
                .with("volume", "v1").with("reason", "a b"));
        assertThat(lines()).containsExactly(
                "blockcache serve: drain failed [event=drain.failed level=error volume=v1 reason=\"a b\"]");
    }

    @Test
    void anEventTakesOnlyTheLevelsAndFieldsItsNameDeclares() {
        // Proves the table in EventName is kept: a field or a level an event name does not declare is refused.
        assertThatThrownBy(() -> LogEvent.of(EventName.DRAIN_DONE, "x").with("peer", "1.2.3.4"))
                .hasMessageContaining("drain.done has no field peer");
        assertThatThrownBy(() -> LogEvent.of(Level.ERROR, EventName.NBD_CONNECT, "x"))
                .hasMessageContaining("nbd.connect is not logged at error");
    }

    @Test
    void underTheJournalEveryLineStartsWithItsSyslogPriority() {
        // Proves the sd-daemon(3) prefixes: <3> error, <4> warning, <6> info, in front of text and of JSON alike.
        EventLog log = log(LogFormat.JSON, JournalPriority.of("8:12", "8:12"));
        log.now(EventName.SERVE_START_FAILED, "e");
        log.now(EventName.NBD_REFUSED, "w");
        log.now(EventName.HOST_FORMAT, "i");
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
            log.now(EventName.NBD_REFUSED, "flood " + i);
        }
        log.now(EventName.HOST_FORMAT, "other");
        assertThat(lines()).hasSize(FloodLimit.LINES_PER_WINDOW_MAX + 1);
        assertThat(lines().get(9)).startsWith("blockcache serve: flood 9 ");
        assertThat(lines().get(10)).startsWith("blockcache serve: other ");

        nowNs.addAndGet(FloodLimit.WINDOW_NS);
        log.now(EventName.NBD_REFUSED, "after");
        assertThat(lines().subList(11, 13)).containsExactly("blockcache serve: suppressed 15 lines of nbd.refused"
                + " (at most 10 per 10 s per event; the counters in /api/stats count all) [event=log.suppressed"
                + " level=warning of=nbd.refused suppressed=15]",
                "blockcache serve: after [event=nbd.refused level=warning]");
    }

    @Test
    void theSuppressedCountComesWhenTheWindowEndsWithoutAnotherLine() throws Exception {
        // Proves the timer: with the writer thread running, a flood's count is written once its window is over,
        // though no other event is logged after it (before 2026-12-07 it waited for the next line of any event).
        EventLog log = log(LogFormat.TEXT, JournalPriority.of(null, null)).start();
        try {
            for (int i = 0; i < 12; i++) {
                log.log(LogEvent.of(EventName.NBD_TIMEOUT, "flood " + i));
            }
            awaitLines(FloodLimit.LINES_PER_WINDOW_MAX);
            nowNs.addAndGet(FloodLimit.WINDOW_NS);
            awaitLines(FloodLimit.LINES_PER_WINDOW_MAX + 1);
            assertThat(lines().get(FloodLimit.LINES_PER_WINDOW_MAX)).contains("suppressed 2 lines of nbd.timeout")
                    .contains("[event=log.suppressed level=warning of=nbd.timeout suppressed=2]");
        } finally {
            log.close();
        }
    }

    @Test
    void queuedEventsAreWrittenInOrderBeforeALineWrittenNowAndAFullQueueIsCounted() {
        // Proves the hand-over: events queued (as the loop does) come out before a later line written at once, in
        // order; past the queue's bound they are dropped and counted as one log.dropped line, never blocking.
        EventLog log = log(LogFormat.TEXT, JournalPriority.of(null, null)); // no writer thread: nothing drains it
        log.log(LogEvent.of(EventName.DRAIN_DONE, "first"));
        log.log(LogEvent.of(EventName.NBD_CONNECT, "second"));
        log.now(EventName.SERVE_STOPPING, "third");
        assertThat(lines()).hasSize(3);
        assertThat(lines().get(0)).startsWith("blockcache serve: first ");
        assertThat(lines().get(1)).startsWith("blockcache serve: second ");
        assertThat(lines().get(2)).startsWith("blockcache serve: third ");
        for (int i = 0; i < EventLog.QUEUE_EVENTS_MAX + 7; i++) {
            log.log(LogEvent.of(EventName.HOST_FILE_CREATED, "f"));
        }
        log.tick();
        assertThat(lines()).last().asString().contains("[event=log.dropped level=warning dropped=7]");
    }

    @Test
    void countsNotYetReportedAreWrittenAtClose() {
        // Proves a flood that ends with the process is still reported: close writes its count.
        EventLog log = log(LogFormat.JSON, JournalPriority.of(null, null));
        for (int i = 0; i < 12; i++) {
            log.now(EventName.ADMIN_REFUSED, "r");
        }
        log.close();
        Map<?, ?> last = (Map<?, ?>) JsonReader.parse(lines().get(lines().size() - 1));
        assertThat(last.get("event")).isEqualTo("log.suppressed");
        assertThat(last.get("of")).isEqualTo("admin.refused");
        assertThat(((Number) last.get("suppressed")).longValue()).isEqualTo(2);
    }

    private void awaitLines(int count) throws InterruptedException {
        long endNs = System.nanoTime() + WAIT_NS;
        while (lines().size() < count) {
            assertThat(System.nanoTime()).as("%d lines within 20 s: %s", count, lines()).isLessThan(endNs);
            Thread.sleep(10); // polls a condition with a deadline
        }
    }
}
