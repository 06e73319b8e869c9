package io.blockcache.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.admin.AdminGuard;
import io.blockcache.admin.AdminToken;
import io.blockcache.admin.RunningCacheSet;
import io.blockcache.device.IoResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The commands that talk to the admin API ({@code stats}, {@code get}, {@code set}, {@code drain}, {@code reload})
 * against a server that requires a bearer token: with {@code --admin-token-file} they work;
 * without it, or with a wrong or badly kept file, they fail in one line and change nothing.
 */
class AdminTokenCommandsTest {
    private static final String TOKEN = "f00dfeedf00dfeedf00dfeedf00dfeed";

    @TempDir
    Path dir;
    private RunningCacheSet cache;
    private Path tokenFile;

    @BeforeEach
    void start() throws Exception {
        cache = new RunningCacheSet(new AdminGuard(AdminToken.of(TOKEN, "test"), line -> { }));
        tokenFile = AccessSettingsTest.tokenFile(dir, TOKEN);
    }

    @AfterEach
    void stop() {
        cache.close();
    }

    @Test
    void everyAdminCommandSendsTheTokenFromItsFile() throws Exception {
        // Proves stats, get, set, drain and drain status work with --admin-token-file, and reload finds the token
        // through the config file's admin-token-file (the server answers its "no config" 404, not 401).
        assertThat(cache.write(0, 8192)).isEqualTo(IoResult.OK);
        String admin = cache.adminHostPort();
        String file = tokenFile.toString();
        CliRun stats = CliRun.of("stats", "--admin", admin, "--admin-token-file", file);
        assertThat(stats.exitCode()).as(stats.err()).isZero();
        assertThat(stats.out()).contains("admin: token required; 0 requests refused (401); refused 0 by the address"
                + " limit (429), 0 by the total; 0 timeouts\n");
        CliRun set = CliRun.of("set", "volume.default.mode", "writethrough", "--admin", admin, "--admin-token-file",
                file);
        assertThat(set.exitCode()).as(set.err()).isZero();
        assertThat(CliRun.of("get", "volume.default.mode", "--admin", admin, "--admin-token-file", file).out()
                .strip()).isEqualTo("writethrough");
        CliRun status = CliRun.of("drain", "status", "--admin", admin, "--admin-token-file", file);
        assertThat(status.exitCode()).as(status.err()).isZero();
        CliRun drain = CliRun.of("drain", "--volume", "default", "--admin", admin, "--admin-token-file", file);
        assertThat(drain.exitCode()).as(drain.err()).isZero();
        assertThat(drain.out()).startsWith("default: clean, 8.0 KiB written back");

        Path config = Files.writeString(dir.resolve("serve.properties"), "admin-listen=" + admin
                + "\nadmin-token-file=" + file + "\n");
        CliRun reload = CliRun.of("reload", "--config", config.toString());
        assertThat(reload.exitCode()).isEqualTo(1);
        assertThat(reload.err()).contains("started without a configuration file").doesNotContain("token");
    }

    @Test
    void withoutTheTokenCommandsFailInOneLineAndChangeNothing() throws Exception {
        // Proves a missing token, a wrong one and a token file open to others each end the command with one line,
        // and the knob the refused 'set' named keeps its value.
        String admin = cache.adminHostPort();
        CliRun none = CliRun.of("set", "volume.default.mode", "writearound", "--admin", admin);
        assertThat(none.exitCode()).isEqualTo(1);
        assertThat(none.err()).startsWith("blockcache set: this admin API needs a token: send 'Authorization:"
                + " Bearer TOKEN' (blockcache commands: --admin-token-file FILE;");
        Path wrong = dir.resolve("wrong.token");
        Files.writeString(wrong, "0".repeat(32) + "\n");
        Files.setPosixFilePermissions(wrong, PosixFilePermissions.fromString("rw-------"));
        CliRun bad = CliRun.of("stats", "--admin", admin, "--admin-token-file", wrong.toString());
        assertThat(bad.exitCode()).isEqualTo(1);
        assertThat(bad.err()).contains("the request had a wrong bearer token").hasLineCount(1);
        Files.setPosixFilePermissions(tokenFile, PosixFilePermissions.fromString("rw-r--r--"));
        CliRun open = CliRun.of("get", "volume.default.mode", "--admin", admin, "--admin-token-file",
                tokenFile.toString());
        assertThat(open.exitCode()).isEqualTo(1);
        assertThat(open.err()).contains("permissions rw-r--r-- are too open").hasLineCount(1);
        Files.setPosixFilePermissions(tokenFile, PosixFilePermissions.fromString("rw-------"));
        assertThat(CliRun.of("get", "volume.default.mode", "--admin", admin, "--admin-token-file",
                tokenFile.toString()).out().strip()).isEqualTo("writeback");
    }
}
