package io.blockcache.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.log.EventName;
import io.blockcache.log.EventSink;
import io.blockcache.log.Level;
import io.blockcache.log.LogEvent;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;

/** SLF4J's warnings and errors of the libraries as events of serve's log ({@link LibraryLog}). */
class LibraryLogTest {
    private static final long EXIT_WAIT_SECONDS = 60;
    private final List<LogEvent> events = new ArrayList<>();
    private final AtomicReference<EventSink> sink = new AtomicReference<>(events::add);
    private final AtomicLong nowNs = new AtomicLong(5_000);

    @TempDir
    Path dir;

    private Logger logger(LibraryLogger.RateGate gate) {
        return new LibraryLogger("org.apache.ratis.Example", sink::get, gate, nowNs::get);
    }

    @Test
    void aWarningArrivesAsLibWarningWithItsLoggerAndAnInfoDoesNot() {
        // Proves warn() is one lib.warning at warning level with logger= and the formatted message, error() with an
        // exception is lib.error with exception=, and info()/debug() give nothing.
        Logger logger = logger(new LibraryLogger.RateGate(LibraryLogger.EVENTS_PER_SECOND_MAX));
        logger.info("a leader was elected: {}", "n1");
        logger.debug("heartbeat");
        logger.warn("slow follower {} behind by {} entries", "n2", 42);
        logger.error("install snapshot failed", new IOException("disk full"));

        assertThat(events).hasSize(2);
        LogEvent warning = events.get(0);
        assertThat(warning.name()).isEqualTo(EventName.LIB_WARNING);
        assertThat(warning.level()).isEqualTo(Level.WARNING);
        assertThat(warning.message()).isEqualTo("org.apache.ratis.Example: slow follower n2 behind by 42 entries");
        assertThat(warning.fields()).containsExactly(new LogEvent.Field("logger", "org.apache.ratis.Example"));
        LogEvent error = events.get(1);
        assertThat(error.name()).isEqualTo(EventName.LIB_ERROR);
        assertThat(error.level()).isEqualTo(Level.ERROR);
        assertThat(error.message()).endsWith("install snapshot failed: java.io.IOException: disk full");
        assertThat(error.fields()).containsExactly(new LogEvent.Field("logger", "org.apache.ratis.Example"),
                new LogEvent.Field("exception", "java.io.IOException"));
    }

    @Test
    void beforeServesLogExistsNothingIsFormattedOrSent() {
        // Proves the provider is silent without serve's log: warn and error are off and send nothing.
        sink.set(EventSink.NONE);
        Logger logger = logger(new LibraryLogger.RateGate(LibraryLogger.EVENTS_PER_SECOND_MAX));
        assertThat(logger.isWarnEnabled()).isFalse();
        assertThat(logger.isErrorEnabled()).isFalse();
        logger.error("lost");
        sink.set(events::add);
        assertThat(logger.isWarnEnabled()).isTrue();
        assertThat(events).isEmpty();
    }

    @Test
    void aLibraryLoggingInALoopGetsAtMostItsShareOfTheQueueASecond() {
        // Proves the rate gate: 3 per second pass of 10 calls, and 3 more once the clock passes a second.
        Logger logger = logger(new LibraryLogger.RateGate(3));
        for (int i = 0; i < 10; i++) {
            logger.warn("retry {}", i);
        }
        assertThat(events).hasSize(3);
        nowNs.addAndGet(TimeUnit.SECONDS.toNanos(1));
        for (int i = 0; i < 10; i++) {
            logger.warn("retry {}", i);
        }
        assertThat(events).hasSize(6);
    }

    @Test
    void aFreshJvmBindsSlf4jToThisProviderWithoutAWordOfSlf4jOnStderr() throws Exception {
        // Proves, in a JVM with the real class path (slf4j-nop on it too): after LibraryLog.select, SLF4J binds this
        // provider (a library's warn() is a lib.warning JSON line, its info() nothing) and SLF4J itself prints no line
        // (no "multiple providers", no "Attempting to load provider").
        Path err = dir.resolve("probe.err");
        String java = ProcessHandle.current().info().command().orElseThrow();
        ProcessBuilder builder = new ProcessBuilder(List.of(java, "-cp", System.getProperty("java.class.path"),
                LibraryLogProbe.class.getName())).redirectError(err.toFile())
                .redirectOutput(ProcessBuilder.Redirect.DISCARD);
        builder.environment().remove("JOURNAL_STREAM"); // plain JSON lines, no journal prefix
        Process process = builder.start();
        assertThat(process.waitFor(EXIT_WAIT_SECONDS, TimeUnit.SECONDS)).as("the probe ended").isTrue();
        String text = Files.readString(err, StandardCharsets.UTF_8);
        assertThat(process.exitValue()).as(text).isZero();
        List<String> lines = text.lines().toList();
        assertThat(lines).as(text).hasSize(1);
        Map<?, ?> line = (Map<?, ?>) JsonReader.parse(lines.get(0));
        assertThat(line.get("event")).isEqualTo("lib.warning");
        assertThat(line.get("level")).isEqualTo("warning");
        assertThat(line.get("logger")).isEqualTo("org.apache.ratis.Probe");
        assertThat(String.valueOf(line.get("message"))).endsWith("a warning from 7");
    }
}
