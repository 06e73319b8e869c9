package io.blockcache.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.blockcache.device.IoResult;
import io.blockcache.volume.Volume;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Durability across a real SIGKILL: a separate JVM ({@link KillNineWriter}) writes and flushes through a cache
 * set on files and is killed while writing; the test then recovers the files in-process and checks every
 * sector against the seeded write sequence.
 */
class KillNineTest {
    private static final String EOF = "<eof>";
    /** FLUSHED lines to wait for before the kill: 5 x 8 writes are durable by then; the writer flushes no more. */
    private static final int FLUSHES_BEFORE_KILL = 5;
    /** Then wait until this many more writes were submitted: the kill lands between two FLUSHes. */
    private static final int KILL_AFTER_UNFLUSHED_WRITES = 3;
    /** Longest wait for the writer's next line: a bound for a hung writer, far above a loaded JVM start. */
    private static final long LINE_TIMEOUT_MS = 60_000;
    private static final int SECTOR_BYTES = 512;

    @TempDir
    Path dir;

    /** What one killed run printed. */
    private record Run(int lastFlushed, int lastSubmitted, List<String> lines) {
    }

    @Test
    void flushedWritesSurviveSigkillAndASecondSigkillAfterRecovery() throws Exception {
        // Proves docs/ARCHITECTURE.md §5 items 1 and 3 across a real kill -9: every write acknowledged before an
        // acknowledged FLUSH reads back exactly after recovery, and every other sector holds its flushed value or the
        // value of a write submitted after that flush, never anything older; twice, the second run starting from
        // recovery.
        Path cacheFile = dir.resolve("cache.img");
        Path backingFile = dir.resolve("backing.img");
        byte[] state = new byte[(int) FileCacheSet.VOLUME_BYTES]; // a fresh sparse backing file reads as zeroes

        long firstSeed = 11;
        Run first = runAndKill(cacheFile, backingFile, true, firstSeed);
        state = recoverAndCheck(cacheFile, backingFile, state, firstSeed, first);

        long secondSeed = 12;
        Run second = runAndKill(cacheFile, backingFile, false, secondSeed);
        recoverAndCheck(cacheFile, backingFile, state, secondSeed, second);
    }

    /** Starts the writer, waits for enough FLUSHED lines, kills it with SIGKILL and collects its output. */
    private Run runAndKill(Path cacheFile, Path backingFile, boolean format, long seed) throws Exception {
        String java = ProcessHandle.current().info().command().orElseThrow();
        Path stderr = dir.resolve("writer-" + seed + ".stderr");
        Process process = new ProcessBuilder(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                KillNineWriter.class.getName(), cacheFile.toString(), backingFile.toString(),
                Boolean.toString(format), Long.toString(seed), Integer.toString(FLUSHES_BEFORE_KILL))
                .redirectError(stderr.toFile())
                .start();
        LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> pump(process, lines), "kill-nine-stdout");
        reader.setDaemon(true);
        reader.start();
        List<String> seen = new ArrayList<>();
        int flushes = 0;
        String killAfter = null;
        try {
            // Kill in the middle of a batch: a few writes after the last FLUSHED are acknowledged or in flight.
            while (killAfter == null || !seen.get(seen.size() - 1).equals(killAfter)) {
                String line = lines.poll(LINE_TIMEOUT_MS, TimeUnit.MILLISECONDS);
                if (line == null || line.equals(EOF) || line.startsWith("ERROR") || line.equals("HOLDING")) {
                    fail("writer (seed " + seed + ") stopped before " + FLUSHES_BEFORE_KILL + " flushes: last line "
                            + line + ", output " + seen + ", stderr: " + Files.readString(stderr));
                }
                seen.add(line);
                if (line.startsWith("FLUSHED ") && ++flushes == FLUSHES_BEFORE_KILL) {
                    killAfter = "SUBMIT " + (Integer.parseInt(line.substring(8)) + KILL_AFTER_UNFLUSHED_WRITES);
                }
            }
        } finally {
            // SIGKILL: no shutdown hooks, no finally blocks in the writer. Through the handle, because
            // Process.destroyForcibly() also closes our end of its stdout, losing the lines still in the pipe.
            process.toHandle().destroyForcibly();
            assertThat(process.waitFor(10, TimeUnit.SECONDS)).as("writer exited after SIGKILL").isTrue();
        }
        reader.join(TimeUnit.SECONDS.toMillis(10));
        assertThat(reader.isAlive()).as("stdout drained after the kill").isFalse();
        lines.drainTo(seen);
        assertThat(seen).as("writer must not fail before the kill").noneMatch(l -> l.startsWith("ERROR"));
        assertThat(process.exitValue()).as("killed by SIGKILL (128 + 9)").isEqualTo(137);
        int lastFlushed = 0;
        int lastSubmitted = -1;
        for (String line : seen) {
            if (line.startsWith("FLUSHED ")) {
                lastFlushed = Integer.parseInt(line.substring(8));
            } else if (line.startsWith("SUBMIT ")) {
                lastSubmitted = Integer.parseInt(line.substring(7));
            }
        }
        // The writer flushes no more after FLUSHES_BEFORE_KILL, so however late the kill lands it is mid-batch.
        assertThat(lastFlushed).isEqualTo(FLUSHES_BEFORE_KILL * KillNineWriter.FLUSH_EVERY);
        assertThat(lastSubmitted).as("unflushed writes at the kill").isGreaterThanOrEqualTo(lastFlushed
                + KILL_AFTER_UNFLUSHED_WRITES);
        return new Run(lastFlushed, lastSubmitted, seen);
    }

    private static void pump(Process process, LinkedBlockingQueue<String> lines) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                lines.add(line);
            }
        } catch (IOException e) {
            lines.add("ERROR reading writer output: " + e);
        }
        lines.add(EOF);
    }

    /**
     * Recovers the files in-process and checks every sector of the volume against {@code before} (the state
     * when the run started) plus the run's writes; returns the contents read, the start of the next run.
     */
    private static byte[] recoverAndCheck(Path cacheFile, Path backingFile, byte[] before, long seed, Run run)
            throws IOException {
        byte[] flushed = before.clone();
        for (int i = 0; i < run.lastFlushed(); i++) {
            KillNineWriter.Write w = KillNineWriter.write(seed, i);
            System.arraycopy(w.data(), 0, flushed, (int) w.offsetBytes(), w.data().length);
        }
        // Writes submitted after the last acknowledged FLUSH may or may not have survived: per sector, list them.
        List<List<KillNineWriter.Write>> maybe = new ArrayList<>();
        int sectors = flushed.length / SECTOR_BYTES;
        List<KillNineWriter.Write>[] maybeBySector = newListArray(sectors);
        for (int i = run.lastFlushed(); i <= run.lastSubmitted(); i++) {
            KillNineWriter.Write w = KillNineWriter.write(seed, i);
            for (int s = (int) (w.offsetBytes() / SECTOR_BYTES); s < (w.offsetBytes() + w.data().length) / SECTOR_BYTES;
                    s++) {
                if (maybeBySector[s] == null) {
                    maybeBySector[s] = new ArrayList<>();
                }
                maybeBySector[s].add(w);
            }
        }
        byte[] actual;
        try (FileCacheSet files = FileCacheSet.openFiles(cacheFile, backingFile)) {
            Outcome<CacheSet> opened = files.openSet();
            assertThat(opened.error()).as("recovery after SIGKILL (seed %s)", seed).isNull();
            Volume volume = opened.value().volume(FileCacheSet.EXPORT);
            actual = new byte[flushed.length];
            int chunk = 1 << 20;
            for (int offset = 0; offset < actual.length; offset += chunk) {
                ByteBuffer buffer = ByteBuffer.wrap(actual, offset, chunk).slice();
                int at = offset;
                IoResult read = OnLoop.io(files.loop, cb -> volume.read(at, buffer, cb));
                assertThat(read).as("read at %s after recovery", at).isEqualTo(IoResult.OK);
            }
        }
        int strict = 0;
        for (int s = 0; s < sectors; s++) {
            int from = s * SECTOR_BYTES;
            if (Arrays.equals(actual, from, from + SECTOR_BYTES, flushed, from, from + SECTOR_BYTES)) {
                continue;
            }
            boolean allowed = false;
            if (maybeBySector[s] != null) {
                for (KillNineWriter.Write w : maybeBySector[s]) {
                    int in = from - (int) w.offsetBytes();
                    allowed |= Arrays.equals(actual, from, from + SECTOR_BYTES, w.data(), in, in + SECTOR_BYTES);
                }
            }
            if (!allowed) {
                fail("seed " + seed + ": sector " + s + " (byte " + from + ") holds neither its value as of FLUSHED "
                        + run.lastFlushed() + " nor that of a write submitted after it (last SUBMIT "
                        + run.lastSubmitted() + ")");
            }
        }
        for (int s = 0; s < sectors; s++) {
            strict += maybeBySector[s] == null ? 1 : 0;
        }
        assertThat(strict).as("sectors checked exactly").isGreaterThan(sectors / 2);
        return actual;
    }

    @SuppressWarnings("unchecked")
    private static List<KillNineWriter.Write>[] newListArray(int length) {
        return new List[length];
    }
}
