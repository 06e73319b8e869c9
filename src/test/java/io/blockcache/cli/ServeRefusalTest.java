package io.blockcache.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Validate, then act: a {@code serve} refused for a port in use, a cache too small to format or a config file it
 * cannot read says why in one line and leaves the data directory as it was — before, a port in use or
 * {@code --cache-size 1K} failed only after an 8 GiB backing file and a cache had been created, which the next start
 * then refused.
 */
class ServeRefusalTest {
    @TempDir
    Path dir;

    @Test
    void aPortInUseRefusesTheStartBeforeAnyFileIsCreated() throws IOException {
        // Proves both listeners are bound before the files: a taken NBD port, then a taken admin port.
        Path data = dir.resolve("data");
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            String port = "127.0.0.1:" + taken.getLocalPort();
            CliRun nbd = CliRun.of("serve", "--data-dir", data.toString(), "--nbd-listen", port, "--admin-listen",
                    "127.0.0.1:0");
            assertThat(nbd.exitCode()).as(nbd.err()).isEqualTo(1);
            assertThat(nbd.err()).contains("cannot listen for NBD on " + port).contains("already in use")
                    .contains("nothing was created");
            CliRun admin = CliRun.of("serve", "--data-dir", data.toString(), "--nbd-listen", "127.0.0.1:0",
                    "--admin-listen", port);
            assertThat(admin.exitCode()).as(admin.err()).isEqualTo(1);
            assertThat(admin.err()).contains("cannot listen for the admin API on " + port).contains("already in use");
        }
        assertThat(filesUnder(data)).as("nothing created").isEmpty();
    }

    @Test
    void aCacheTooSmallToFormatIsRefusedBeforeAnyFileIsCreated() throws IOException {
        // Proves --cache-size 1K is refused with the smallest size that works, and no backing file is made.
        Path data = dir.resolve("data");
        CliRun run = CliRun.of("serve", "--data-dir", data.toString(), "--cache-size", "1K", "--nbd-listen",
                "127.0.0.1:0", "--admin-listen", "127.0.0.1:0");
        assertThat(run.exitCode()).as(run.err()).isEqualTo(1);
        assertThat(run.err()).contains("cannot create the cache").contains("1024 bytes").contains("at least")
                .contains("nothing was created");
        assertThat(filesUnder(data)).as("nothing created").isEmpty();
    }

    @Test
    void aConfigFileThatCannotBeReadIsNamedWithItsCause() throws IOException {
        // Proves each unreadable config file gets its own cause: missing, a directory, not UTF-8 (with the line).
        CliRun missing = serveWithConfig(dir.resolve("nope.conf"));
        assertThat(missing.err()).contains("nope.conf").contains("no such file");
        CliRun directory = serveWithConfig(dir);
        assertThat(directory.err()).contains("is a directory");
        Path latin1 = dir.resolve("latin1.conf");
        Files.write(latin1, "mode=writeback\n# caf\u00e9\n".getBytes(StandardCharsets.ISO_8859_1));
        CliRun notUtf8 = serveWithConfig(latin1);
        assertThat(notUtf8.err()).contains("latin1.conf is not UTF-8 text").contains("0xE9").contains("line 2");
        Path binary = dir.resolve("binary.conf");
        Files.write(binary, new byte[] {'a', '=', '1', '\n', 0, 1, 2});
        assertThat(serveWithConfig(binary).err()).contains("NUL byte at line 2");
        for (CliRun run : new CliRun[] {missing, directory, notUtf8}) {
            assertThat(run.exitCode()).isEqualTo(2);
            assertThat(run.err().strip().lines().count()).as(run.err()).isEqualTo(1);
        }
        assertThat(dir.resolve("data")).doesNotExist();
    }

    private CliRun serveWithConfig(Path config) {
        return CliRun.of("serve", "--data-dir", dir.resolve("data").toString(), "--config", config.toString(),
                "--nbd-listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0");
    }

    private static java.util.List<Path> filesUnder(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return java.util.List.of();
        }
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).toList();
        }
    }
}
