package io.blockcache.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** serve's warnings and errors carry sd-daemon priority prefixes on a journal stream, and only there. */
class JournalPriorityTest {
    private static final long EXIT_WAIT_SECONDS = 60;

    @TempDir
    Path dir;

    @Test
    void prefixesOnlyWhenStderrIsTheJournalStream() {
        // Proves the decision: no JOURNAL_STREAM, or one naming another file than stderr, leaves lines plain; the
        // same device and inode (or no way to compare) marks errors <3> and warnings <4>.
        assertThat(JournalPriority.of(null, "8:12").error("x")).isEqualTo("x");
        assertThat(JournalPriority.of(" ", "8:12").warning("x")).isEqualTo("x");
        assertThat(JournalPriority.of("8:12", "8:99").error("x")).isEqualTo("x");
        assertThat(JournalPriority.of("8:12", "8:12").error("x")).isEqualTo("<3>x");
        assertThat(JournalPriority.of("8:12", "8:12").warning("x")).isEqualTo("<4>x");
        assertThat(JournalPriority.of("8:12", null).warning("x")).isEqualTo("<4>x");
    }

    @Test
    void aServeRefusalIsAnErrorInTheJournal() throws Exception {
        // Proves the real process: serve refusing a listen address off loopback writes its line with <3> when its
        // stderr is the stream JOURNAL_STREAM names (here a file, as systemd names its socket), and plain without.
        Path journal = dir.resolve("journal.err");
        Files.createFile(journal);
        String stream = JournalPriority.deviceAndInode(journal);
        assertThat(stream).matches("[0-9]+:[0-9]+");
        assertThat(refusal(journal, stream)).startsWith("<3>blockcache serve: ").contains("--nbd-listen");
        Path plain = dir.resolve("plain.err");
        assertThat(refusal(plain, null)).startsWith("blockcache serve: ").contains("--nbd-listen");
    }

    /** The stderr of {@code serve --nbd-listen 0.0.0.0:0} in {@code err}, with JOURNAL_STREAM (null: unset). */
    private String refusal(Path err, String journalStream) throws Exception {
        String java = ProcessHandle.current().info().command().orElseThrow();
        ProcessBuilder builder = new ProcessBuilder(List.of(java, "-cp", System.getProperty("java.class.path"),
                "io.blockcache.cli.Main", "serve", "--nbd-listen", "0.0.0.0:0",
                "--data-dir", dir.resolve("data").toString()))
                .redirectError(err.toFile()).redirectOutput(ProcessBuilder.Redirect.DISCARD);
        builder.environment().remove("JOURNAL_STREAM");
        if (journalStream != null) {
            builder.environment().put("JOURNAL_STREAM", journalStream);
        }
        Process process = builder.start();
        assertThat(process.waitFor(EXIT_WAIT_SECONDS, TimeUnit.SECONDS)).as("serve ended").isTrue();
        assertThat(process.exitValue()).isEqualTo(2);
        return Files.readString(err, StandardCharsets.UTF_8);
    }
}
