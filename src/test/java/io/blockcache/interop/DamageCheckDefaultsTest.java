package io.blockcache.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code check --damage} after losing the cache of a serve with its default {@code damage-map=file}: given the backing
 * file as its help says, or serve's data directory, it reads the map where serve kept it and lists only the dirty
 * range — before, pointed at the backing file it reported the whole volume stale and exited 3.
 */
class DamageCheckDefaultsTest {
    /** 64 KiB written at 2 MiB and flushed, writeback paused: its 1 MiB map region is stale without the cache. */
    private static final String WRITE = "h.pwrite(b'\\x5a' * 65536, 2097152); h.flush()";

    @TempDir
    Path dir;

    @BeforeAll
    static void tools() {
        ExternalTool.require("nbdsh");
    }

    @Test
    void theMapIsFoundWhereServeKeptItAndOnlyTheDirtyRangeIsStale() throws Exception {
        // Proves both ways in (--backing with the backing file, --data-dir) read the map file and list its one 1 MiB
        // region stale.
        Path data = dir.resolve("data");
        ServeProcess serve = ServeProcess.start(data, "serve");
        ExternalTool.Run write = ExternalTool.run(dir, Duration.ofSeconds(60),
                List.of("nbdsh", "-u", serve.uri(), "-c", WRITE));
        assertThat(write.exitCode()).as(write.describe()).isZero();
        serve.killMinusNine(); // the cache is "lost": only the backing file and the map file are read below

        ExternalTool.Run byBacking = CliProcess.run(dir, "check", "--damage", "--backing",
                "default=" + data.resolve("backing.img"));
        ExternalTool.Run byDataDir = CliProcess.run(dir, "check", "--damage", "--data-dir", data.toString());
        for (ExternalTool.Run run : List.of(byBacking, byDataDir)) {
            assertThat(run.exitCode()).as(run.describe()).isEqualTo(1); // stale ranges listed, none unreadable
            assertThat(run.out()).as(run.describe()).contains("1 stale ranges, 1.0 MiB").contains("LBA 4096 +2048")
                    .doesNotContain("PROBLEM");
        }
        assertThat(byBacking.err()).contains("damage-map-default.img");
    }
}
