package io.blockcache.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * packaging/blockcache.service passes {@code systemd-analyze verify}, with its commands pointed at this checkout's
 * bin/blockcache (verify checks that they are executable, and /usr/lib/blockcache is not installed here).
 */
class SystemdUnitTest {
    private static final Path UNIT = Path.of("packaging/blockcache.service");
    private static final String INSTALLED_LAUNCHER = "/usr/lib/blockcache/bin/blockcache";
    private static final Duration VERIFY_TIMEOUT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private ExternalTool.Run verify(String unitText) throws Exception {
        Path unit = dir.resolve("blockcache.service");
        Files.writeString(unit, unitText.replace(INSTALLED_LAUNCHER, Path.of("bin/blockcache").toAbsolutePath()
                .toString()));
        return ExternalTool.run(dir, VERIFY_TIMEOUT, List.of("systemd-analyze", "verify", "--man=no",
                unit.toString()));
    }

    @Test
    void unitVerifies() throws Exception {
        // Proves the unit as shipped is one systemd accepts, with no warning: notify type, reload, hardening.
        ExternalTool.require("systemd-analyze");
        String text = Files.readString(UNIT);
        assertThat(text).contains("Type=notify", "NotifyAccess=all", "ExecReload=" + INSTALLED_LAUNCHER + " reload",
                "ExecStart=" + INSTALLED_LAUNCHER + " serve --config /etc/blockcache/blockcache.conf",
                "ProtectSystem=strict", "NoNewPrivileges=yes", "StateDirectory=blockcache");
        ExternalTool.Run run = verify(text);
        assertThat(run.exitCode()).as(run.describe()).isZero();
        assertThat(run.out() + run.err()).as(run.describe()).isBlank();
    }

    @Test
    void verifyCatchesABrokenUnit() throws Exception {
        // Proves the check above can fail: a misspelt directive and a missing command are reported.
        ExternalTool.require("systemd-analyze");
        String broken = Files.readString(UNIT).replace("NoNewPrivileges=yes", "NoNewPrivilege=yes")
                .replace("ExecStart=" + INSTALLED_LAUNCHER, "ExecStart=/nonexistent/blockcache");
        ExternalTool.Run run = verify(broken);
        assertThat(run.out() + run.err()).as(run.describe()).contains("NoNewPrivilege").contains("/nonexistent");
    }
}
