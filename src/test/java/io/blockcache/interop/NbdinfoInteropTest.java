package io.blockcache.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** libnbd's {@code nbdinfo} against a real {@code serve}: what a client learns during the handshake and from maps. */
@Timeout(90)
class NbdinfoInteropTest {
    /** FORMAT.md §4: volume byte 0 sits at the backing header's dataOffsetBytes, 1 MiB by default. */
    private static final long DATA_OFFSET_BYTES = 1L << 20;
    private static final Duration TOOL_TIMEOUT = Duration.ofSeconds(30);
    /** nbdinfo --map lines: offset, length, type number, optional description. */
    private static final Pattern MAP_LINE = Pattern.compile("^\\s*(\\d+)\\s+(\\d+)\\s+(\\d+)", Pattern.MULTILINE);

    @TempDir
    Path dir;

    @BeforeEach
    void tools() {
        ExternalTool.require("nbdinfo");
        ExternalTool.require("nbdcopy");
    }

    @Test
    void reportsSizeBlockSizesAndBothMetaContexts() throws Exception {
        // Proves the handshake a libnbd client sees: the export size exactly as --backing-size asked (the file is
        // 1 MiB larger for its header; it used to be the export that was 1 MiB short), the block-size constraints,
        // and both meta contexts listed.
        try (ServeProcess serve = ServeProcess.start(dir.resolve("data"), "serve")) {
            ExternalTool.Run info = ExternalTool.run(dir, TOOL_TIMEOUT, List.of("nbdinfo", serve.uri()));
            assertThat(info.exitCode()).as(info.describe()).isZero();
            long backingBytes = 64L << 20; // ServeProcess.BACKING_SIZE
            assertThat(field(info.out(), "export-size")).isEqualTo(backingBytes);
            assertThat(Files.size(dir.resolve("data").resolve("backing.img")))
                    .isEqualTo(backingBytes + DATA_OFFSET_BYTES);
            // The values NbdServer advertises (nbd.Negotiation): any alignment, 4 KiB preferred, 32 MiB payloads.
            assertThat(field(info.out(), "block_size_minimum")).isEqualTo(1);
            assertThat(field(info.out(), "block_size_preferred")).isEqualTo(4096);
            assertThat(field(info.out(), "block_size_maximum")).isEqualTo(32L << 20);
            assertThat(info.out()).contains("base:allocation").contains("blockcache:state")
                    .contains("can_multi_conn: true").contains("can_fua: true").contains("can_trim: true");
        }
    }

    @Test
    void stateMapShowsTheWrittenRangeDirty() throws Exception {
        // Proves BLOCK_STATUS on blockcache:state through a real client: after a write, its range is reported
        // cached and dirty (bits 0 and 1) and a range never written is not.
        try (ServeProcess serve = ServeProcess.start(dir.resolve("data"), "serve")) {
            Path data = RandomFiles.write(dir.resolve("random.bin"), 1 << 20, 11);
            ExternalTool.Run copy = ExternalTool.run(dir, TOOL_TIMEOUT,
                    List.of("nbdcopy", data.toString(), serve.uri()));
            assertThat(copy.exitCode()).as(copy.describe()).isZero();
            ExternalTool.Run map = ExternalTool.run(dir, TOOL_TIMEOUT,
                    List.of("nbdinfo", "--map=blockcache:state", serve.uri()));
            assertThat(map.exitCode()).as(map.describe()).isZero();
            long dirtyBytes = 0;
            long lastEnd = 0;
            Matcher line = MAP_LINE.matcher(map.out());
            while (line.find()) {
                long offset = Long.parseLong(line.group(1));
                long length = Long.parseLong(line.group(2));
                int state = Integer.parseInt(line.group(3));
                assertThat(offset).as("map is contiguous:\n" + map.out()).isEqualTo(lastEnd);
                lastEnd = offset + length;
                if ((state & 3) == 3) {
                    assertThat(lastEnd).as("dirty only where written:\n" + map.out()).isLessThanOrEqualTo(1 << 20);
                    dirtyBytes += length;
                }
            }
            assertThat(dirtyBytes).as(map.out()).isEqualTo(1 << 20);
            assertThat(lastEnd).as("map covers the export").isGreaterThan(1 << 20);
        }
    }

    private static long field(String text, String name) {
        Matcher matcher = Pattern.compile("^\\s*" + name + ":\\s*(\\d+)", Pattern.MULTILINE).matcher(text);
        assertThat(matcher.find()).as(name + " in:\n" + text).isTrue();
        return Long.parseLong(matcher.group(1));
    }
}
