package io.blockcache.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** fio's {@code nbd} engine (libnbd, many requests in flight) with data verification. */
@Timeout(120)
class FioVerifyInteropTest {
    private static final Duration FIO_TIMEOUT = Duration.ofSeconds(90);

    @TempDir
    Path dir;

    @Test
    void randomWritesAtIodepth32VerifyWithCrc32c() throws Exception {
        // Proves that 32 MiB of 4 KiB random writes at iodepth 32 (replies out of order) read back with every
        // block's CRC32C and header intact: fio exits non-zero on the first verify failure (verify_fatal).
        ExternalTool.require("fio");
        try (ServeProcess serve = ServeProcess.start(dir.resolve("data"), "serve")) {
            Path job = dir.resolve("verify.fio");
            Files.writeString(job, String.join("\n",
                    "[global]",
                    "ioengine=nbd",
                    "uri=" + serve.uri(),
                    "rw=randwrite",
                    "bs=4k",
                    "iodepth=32",
                    "size=32m",
                    "randrepeat=1",
                    "verify=crc32c",
                    "do_verify=1",
                    "verify_fatal=1",
                    "[randwrite-then-verify]",
                    ""));
            ExternalTool.Run fio = ExternalTool.run(dir, FIO_TIMEOUT, List.of("fio", "--output-format=json",
                    job.toString()));
            assertThat(fio.exitCode()).as(fio.describe()).isZero();
            // A verify pass that read nothing would prove nothing: 32 MiB written (write.io_bytes) and read back
            // (read.io_bytes); the trim and sync sections report 0.
            assertThat(fio.out().split("\"io_bytes\" : 33554432", -1)).as("read and write io_bytes").hasSize(3);
            assertThat(fio.out()).doesNotContain("verify: bad");
        }
    }
}
