package io.blockcache.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Whole-export round trips with {@code nbdcopy} (libnbd, multi-conn) and {@code qemu-img compare} (QEMU's client). */
@Timeout(120)
class CopyAndCompareInteropTest {
    private static final Duration TOOL_TIMEOUT = Duration.ofSeconds(60);
    private static final int DATA_BYTES = 16 << 20;

    @TempDir
    Path dir;

    @Test
    void nbdcopyRoundTripAndQemuImgCompareSeeTheSameBytes() throws Exception {
        // Proves that random data written by nbdcopy reads back bit for bit (checksum) through nbdcopy and that
        // qemu-img compare finds the export identical to a local file with the same data, and different from
        // one with a single byte changed (so the compare is real).
        ExternalTool.require("nbdcopy");
        ExternalTool.require("nbdinfo");
        ExternalTool.require("qemu-img");
        try (ServeProcess serve = ServeProcess.start(dir.resolve("data"), "serve")) {
            Path data = RandomFiles.write(dir.resolve("random.bin"), DATA_BYTES, 42);
            ExternalTool.Run in = ExternalTool.run(dir, TOOL_TIMEOUT,
                    List.of("nbdcopy", "--flush", data.toString(), serve.uri()));
            assertThat(in.exitCode()).as(in.describe()).isZero();

            Path back = dir.resolve("back.bin");
            ExternalTool.Run out = ExternalTool.run(dir, TOOL_TIMEOUT,
                    List.of("nbdcopy", serve.uri(), back.toString()));
            assertThat(out.exitCode()).as(out.describe()).isZero();
            assertThat(RandomFiles.sha256(back, DATA_BYTES)).isEqualTo(RandomFiles.sha256(data, DATA_BYTES));

            // A local image of the whole export: the same data, then zeros (the backing file started sparse).
            ExternalTool.Run size = ExternalTool.run(dir, TOOL_TIMEOUT, List.of("nbdinfo", "--size", serve.uri()));
            assertThat(size.exitCode()).as(size.describe()).isZero();
            long exportBytes = Long.parseLong(size.out().trim());
            assertThat(Files.size(back)).isEqualTo(exportBytes);
            Path local = dir.resolve("local.raw");
            Files.copy(data, local);
            try (RandomAccessFile file = new RandomAccessFile(local.toFile(), "rw")) {
                file.setLength(exportBytes);
            }
            ExternalTool.Run same = qemuImgCompare(local, serve.uri());
            assertThat(same.exitCode()).as(same.describe()).isZero();
            assertThat(same.out()).contains("identical");

            try (RandomAccessFile file = new RandomAccessFile(local.toFile(), "rw")) {
                file.seek(DATA_BYTES / 2 + 123);
                int old = file.read();
                file.seek(DATA_BYTES / 2 + 123);
                file.write(old ^ 0xFF);
            }
            ExternalTool.Run differ = qemuImgCompare(local, serve.uri());
            assertThat(differ.exitCode()).as("qemu-img compare: 1 = images differ\n" + differ.describe()).isEqualTo(1);
        }
    }

    private ExternalTool.Run qemuImgCompare(Path local, String uri) throws Exception {
        return ExternalTool.run(dir, TOOL_TIMEOUT, List.of("qemu-img", "compare", "-f", "raw", "-F", "raw",
                local.toString(), uri));
    }
}
