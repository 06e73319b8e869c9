package io.blockcache.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where a client command ({@code stats}, {@code get}, {@code set}, {@code drain}, {@code reload}) finds the server:
 * {@code --admin} / {@code --admin-token-file}, else the environment variables, else {@code --config}'s keys, else
 * the default.
 */
class AdminOptionTest {
    private static final Map<String, String> NO_ENVIRONMENT = Map.of();

    @TempDir
    Path dir;

    private Path config(String lines) throws Exception {
        return Files.writeString(dir.resolve("blockcache.conf"), lines);
    }

    @Test
    void theFlagWinsOverTheEnvironmentWhichWinsOverTheConfigFileWhichWinsOverTheDefault() throws Exception {
        // Proves the order for the address and the token file, each on its own.
        Path config = config("admin-listen=127.0.0.1:7001\nadmin-token-file=/etc/blockcache/admin.token\n");
        Map<String, String> environment = Map.of(AdminOption.ADDRESS_VARIABLE, "127.0.0.1:7002",
                AdminOption.TOKEN_FILE_VARIABLE, "/env/admin.token");
        assertThat(AdminOption.target(null, null, null, NO_ENVIRONMENT))
                .isEqualTo(new AdminOption.Target(AdminClient.ADDRESS_DEFAULT, null));
        assertThat(AdminOption.target(null, null, config, NO_ENVIRONMENT))
                .isEqualTo(new AdminOption.Target("127.0.0.1:7001", Path.of("/etc/blockcache/admin.token")));
        assertThat(AdminOption.target(null, null, config, environment))
                .isEqualTo(new AdminOption.Target("127.0.0.1:7002", Path.of("/env/admin.token")));
        assertThat(AdminOption.target("127.0.0.1:7003", Path.of("/flag/admin.token"), config, environment))
                .isEqualTo(new AdminOption.Target("127.0.0.1:7003", Path.of("/flag/admin.token")));
        assertThat(AdminOption.target("127.0.0.1:7003", null, config, NO_ENVIRONMENT))
                .isEqualTo(new AdminOption.Target("127.0.0.1:7003", Path.of("/etc/blockcache/admin.token")));
    }

    @Test
    void aWildcardListenAddressIsReachedOnLoopbackAndABadOneIsNamed() throws Exception {
        // Proves serve's admin-listen=0.0.0.0:PORT is reached at 127.0.0.1:PORT, and a bad key names file, key, value.
        assertThat(AdminOption.target(null, null, config("admin-listen=0.0.0.0:7004\n"), NO_ENVIRONMENT).hostPort())
                .isEqualTo("127.0.0.1:7004");
        assertThat(AdminOption.target(null, null, config("admin-listen=[::1]:7005\n"), NO_ENVIRONMENT).hostPort())
                .isEqualTo("[0:0:0:0:0:0:0:1]:7005");
        Path bad = config("admin-listen=somewhere\n");
        assertThatThrownBy(() -> AdminOption.target(null, null, bad, NO_ENVIRONMENT))
                .hasMessage(bad + ": admin-listen=somewhere: must be HOST:PORT, e.g. 127.0.0.1:10809; got"
                        + " \"somewhere\"");
    }

    @Test
    void aClientCommandWithAConfigFileItCannotReadSaysSoInOneLine() {
        // Proves --config on a client command: a missing file stops it with one line naming the file, exit 1.
        Path missing = dir.resolve("none.conf");
        CliRun run = CliRun.of("stats", "--config", missing.toString());
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.err()).contains(missing.toString()).contains("no such file").hasLineCount(1);
    }
}
