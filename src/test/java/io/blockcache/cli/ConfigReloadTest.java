package io.blockcache.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code blockcache reload} (systemd's ExecReload): knob lines of the config file applied to a running serve. */
class ConfigReloadTest {
    @TempDir
    Path dir;
    private final PrintWriter err = new PrintWriter(new StringWriter(), true);
    private ServeRuntime runtime;

    @AfterEach
    void stop() {
        if (runtime != null) {
            runtime.stop();
        }
    }

    private Path start(String configText) throws Exception {
        Path config = dir.resolve("blockcache.conf");
        Files.writeString(config, "cache-size=64M\n" + configText);
        java.util.List<String> args = java.util.List.of("--data-dir", dir.resolve("data").toString(), "--backing-size",
                "256M", "--nbd-listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0", "--config", config.toString());
        ServeSettings settings = ServeSettings.resolve(args.toArray(String[]::new));
        runtime = ServeRuntime.start(settings, err);
        runtime.setReloader(new ConfigReload(args, config, settings, runtime.host()));
        return config;
    }

    private String admin() {
        return "127.0.0.1:" + runtime.adminAddress().getPort();
    }

    private String knob(String name) {
        CliRun run = CliRun.of("get", name, "--admin", admin());
        assertThat(run.exitCode()).as(run.err()).isZero();
        return run.out().strip();
    }

    @Test
    void reloadAppliesChangedKnobsAndNamesRestartOnlySettings() throws Exception {
        // Proves a reload sets the knobs whose lines changed, leaves the rest, and says which settings need a restart.
        Path config = start("knob.volume.default.mode=writethrough\nknob.writeback.default.running=false\n");
        assertThat(knob("volume.default.mode")).isEqualTo("writethrough");
        Path keys = Files.writeString(config.resolveSibling("keys.psk"), "alice:" + "ab".repeat(32) + "\n");
        Files.writeString(config, "knob.volume.default.mode=writearound\nknob.writeback.default.running=false\n"
                + "cache-size=128M\nbacking-size=1G\n" // --backing-size 256M was given: the flag wins
                + "tls=require\ntls-psk=" + keys + "\nexport.default.allow-addresses=127.0.0.0/8\n");
        CliRun run = CliRun.of("reload", "--admin", admin());
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains("knob.volume.default.mode: writethrough -> writearound")
                .contains("cache-size: 67108864 -> 134217728 grows the cache at the next start (not on reload)")
                .contains("tls (tls-*): off -> require, PSK from " + keys + " takes effect at the next start")
                .contains("access (admin-token-file, export.NAME.allow-*): no admin token -> no admin token; export"
                        + " default: addresses [127.0.0.0/8] takes effect at the next start")
                .doesNotContain("writeback.default.running").doesNotContain("backing-size");
        assertThat(knob("volume.default.mode")).isEqualTo("writearound");

        CliRun again = CliRun.of("reload", "--admin", admin());
        assertThat(again.out()).doesNotContain("knob.");
    }

    @Test
    void aKnobLineWithUnitsIsAppliedOnceAndIsNoChangeOnTheNextReload() throws Exception {
        // Proves knob lines take units at start and on reload, and that a line whose value the knob prints in its
        // base unit (30s as 30000 ms) is not reported as a change by every later reload.
        Path config = start("knob.writeback.default.dirty_expire_ms=30s\n");
        assertThat(knob("writeback.default.dirty_expire_ms")).isEqualTo("30000");
        CliRun same = CliRun.of("reload", "--admin", admin());
        assertThat(same.exitCode()).as(same.err()).isZero();
        assertThat(same.out()).doesNotContain("knob.");
        Files.writeString(config, "cache-size=64M\nknob.writeback.default.dirty_expire_ms=1m\n");
        CliRun changed = CliRun.of("reload", "--admin", admin());
        assertThat(changed.out()).contains("knob.writeback.default.dirty_expire_ms: 30000 -> 1m");
        assertThat(knob("writeback.default.dirty_expire_ms")).isEqualTo("60000");
    }

    @Test
    void aBrokenFileOrARefusedValueIsOneLineAndLosesNothing() throws Exception {
        // Proves a config that does not parse changes nothing, and a refused knob value leaves the knob as it was.
        Path config = start("knob.volume.default.mode=writethrough\n");
        Files.writeString(config, "knob.volume.default.mode=writearound\ncache-szie=1G\n");
        CliRun unknownKey = CliRun.of("reload", "--admin", admin());
        assertThat(unknownKey.exitCode()).isEqualTo(1);
        assertThat(unknownKey.err()).contains("unknown key \"cache-szie\"").contains("nothing changed")
                .hasLineCount(1);
        assertThat(knob("volume.default.mode")).isEqualTo("writethrough");

        Files.writeString(config, "knob.volume.default.mode=fastest\n");
        CliRun refused = CliRun.of("reload", "--admin", admin());
        assertThat(refused.exitCode()).isEqualTo(1);
        assertThat(refused.err()).contains("knob.volume.default.mode=fastest")
                .contains("volume.default.mode: \"fastest\" is not allowed; allowed: writeback");
        assertThat(knob("volume.default.mode")).isEqualTo("writethrough");
    }

    @Test
    void reloadFindsTheAdminAddressInTheConfigFileAndOnlyPostReloads() throws Exception {
        // Proves --config is enough to reach the server (as ExecReload does) and GET on the endpoint is refused.
        Path config = start("knob.volume.default.mode=writethrough\n");
        Files.writeString(config, "cache-size=64M\nadmin-listen=" + admin()
                + "\nknob.volume.default.mode=writearound\n");
        CliRun run = CliRun.of("reload", "--config", config.toString());
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains("knob.volume.default.mode: writethrough -> writearound");
        HttpResponse<String> get = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://" + admin() + "/api/reload")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(get.statusCode()).isEqualTo(405);
    }
}
