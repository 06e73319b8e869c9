package io.blockcache.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code BLOCKCACHE_ADMIN} and {@code BLOCKCACHE_ADMIN_TOKEN_FILE} stand in for {@code --admin} and
 * {@code --admin-token-file} on every command that talks to a server, so an operator sets them once.
 */
class AdminEnvironmentTest {
    @TempDir
    Path dir;

    @Test
    void theEnvironmentGivesTheAddressAndTheTokenAndAFlagStillWins() throws Exception {
        // Proves stats and get reach a token-guarded server through the two variables alone, that without the token
        // variable the server refuses (so the variable is what carried it), and that --admin overrides the variable.
        Path token = dir.resolve("admin.token");
        Files.writeString(token, "s3cr3t-token-for-the-test\n");
        Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-------"));
        try (ServeProcess serve = ServeProcess.start(dir.resolve("data"), "env", "admin-token-file=" + token + "\n")) {
            Map<String, String> both = Map.of("BLOCKCACHE_ADMIN", serve.adminHostPort(),
                    "BLOCKCACHE_ADMIN_TOKEN_FILE", token.toString());
            ExternalTool.Run stats = CliProcess.run(dir, both, "stats", "--json");
            assertThat(stats.exitCode()).as(stats.describe()).isZero();
            assertThat(stats.out()).contains("\"volumes\"");
            ExternalTool.Run get = CliProcess.run(dir, both, "get", "volume.default.mode");
            assertThat(get.exitCode()).as(get.describe()).isZero();

            ExternalTool.Run noToken = CliProcess.run(dir, Map.of("BLOCKCACHE_ADMIN", serve.adminHostPort()),
                    "stats", "--json");
            assertThat(noToken.exitCode()).as(noToken.describe()).isEqualTo(1);

            ExternalTool.Run flagWins = CliProcess.run(dir, Map.of("BLOCKCACHE_ADMIN", "127.0.0.1:1",
                    "BLOCKCACHE_ADMIN_TOKEN_FILE", token.toString()), "stats", "--json", "--admin",
                    serve.adminHostPort());
            assertThat(flagWins.exitCode()).as(flagWins.describe()).isZero();
        }
    }

    @Test
    void theConfigFileGivesTheAddressAndTheTokenWhereNoFlagOrVariableDoes() throws Exception {
        // Proves --config on client commands: serve's file alone reaches a token-guarded server (address and token),
        // the environment variable wins over the file, and the flag over both.
        Path token = dir.resolve("admin.token");
        Files.writeString(token, "s3cr3t-token-for-the-test\n");
        Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-------"));
        try (ServeProcess serve = ServeProcess.start(dir.resolve("data"), "conf", "admin-token-file=" + token + "\n")) {
            Path config = Files.writeString(dir.resolve("client.conf"), "admin-listen=" + serve.adminHostPort()
                    + "\nadmin-token-file=" + token + "\n");
            ExternalTool.Run stats = CliProcess.run(dir, Map.of(), "stats", "--json", "--config", config.toString());
            assertThat(stats.exitCode()).as(stats.describe()).isZero();
            assertThat(stats.out()).contains("\"volumes\"");

            ExternalTool.Run variableWins = CliProcess.run(dir, Map.of("BLOCKCACHE_ADMIN", "127.0.0.1:1"), "get",
                    "volume.default.mode", "--config", config.toString());
            assertThat(variableWins.exitCode()).as(variableWins.describe()).isEqualTo(1);
            assertThat(variableWins.err()).contains("127.0.0.1:1");

            ExternalTool.Run flagWins = CliProcess.run(dir, Map.of("BLOCKCACHE_ADMIN", "127.0.0.1:1"), "get",
                    "volume.default.mode", "--config", config.toString(), "--admin", serve.adminHostPort());
            assertThat(flagWins.exitCode()).as(flagWins.describe()).isZero();
        }
    }
}
