package io.blockcache.cli;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import org.slf4j.LoggerFactory;

/**
 * A child JVM for {@link LibraryLogTest}: chooses the provider as {@code Main.main} does, opens a JSON event log on
 * stderr as serve does, and logs through SLF4J as a library would.
 */
final class LibraryLogProbe {
    private LibraryLogProbe() {
    }

    public static void main(String[] args) {
        LibraryLog.select();
        EventLog log = EventLog.of(new PrintWriter(System.err, true, StandardCharsets.UTF_8), LogFormat.JSON);
        LibraryLog.forwardTo(log);
        org.slf4j.Logger library = LoggerFactory.getLogger("org.apache.ratis.Probe");
        library.info("an info line that must not appear");
        library.warn("a warning from {}", 7);
        log.close();
    }
}
