package io.blockcache.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blockcache.backing.BackingLocation;
import io.blockcache.volume.CacheMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServeSettingsTest {
    @TempDir
    Path dir;

    /** serve's settings from a config file of {@code lines} (none if null) and {@code flags}. */
    private ServeSettings resolve(String lines, String... flags) throws Exception {
        List<String> args = new java.util.ArrayList<>(List.of(flags));
        if (lines != null) {
            args.addAll(List.of("--config", Files.writeString(dir.resolve("serve.properties"), lines).toString()));
        }
        return ServeSettings.resolve(args.toArray(String[]::new));
    }

    @Test
    void noArgumentsGiveTheEmbeddedDefault() throws Exception {
        // Proves the defaults the README promises: ./data files, 1 GiB / 8 GiB, ports 10809 and 10810.
        ServeSettings settings = ServeSettings.resolve();
        assertThat(settings.cacheFile()).isEqualTo(Path.of("data", "cache.img"));
        assertThat(settings.backings())
                .isEqualTo(Map.of("default", new BackingLocation.File(Path.of("data", "backing.img"))));
        assertThat(settings.cacheSizeBytes()).isEqualTo(1L << 30);
        assertThat(settings.backingSizeBytes()).isEqualTo(8L << 30);
        assertThat(settings.nbdListen().getPort()).isEqualTo(10809);
        assertThat(settings.adminListen().getPort()).isEqualTo(10810);
        assertThat(settings.nbdListen().getAddress().isLoopbackAddress()).isTrue();
        assertThat(settings.mode()).isEqualTo(CacheMode.WRITEBACK);
        // The options' defaults are the engine's: written once there, checked here.
        assertThat(settings.nbdLimits()).isEqualTo(io.blockcache.nbd.NbdLimits.DEFAULTS);
        assertThat(timeoutNs(List.of("a=nbd://127.0.0.1:10809/a"), null, null))
                .isEqualTo(io.blockcache.backing.NbdDevice.REQUEST_TIMEOUT_NS_DEFAULT);
        assertThat(retryTimeMs(List.of("a=s3://bucket/a"), null))
                .isEqualTo(io.blockcache.backing.S3Options.RETRY_TIME_MS_DEFAULT);
    }

    @Test
    void theNbdBackingTimeoutIsAFlagOrAConfigKeyForEveryNbdBackingAndValidated() throws Exception {
        // Proves --nbd-backing-timeout / nbd-backing-timeout: 60 s by default, the flag over the config key, applied
        // to every nbd:// backing (not files), and a value that is no duration or out of 1s..24h refused in one line.
        List<String> backings = List.of("a=nbd://127.0.0.1:10809/a", "b=" + dir.resolve("b.img"));
        assertThat(timeoutNs(backings, null, null))
                .isEqualTo(io.blockcache.backing.NbdDevice.REQUEST_TIMEOUT_NS_DEFAULT);
        Path config = dir.resolve("timeout.properties");
        Files.writeString(config, "nbd-backing-timeout=5m\n");
        assertThat(timeoutNs(backings, null, config)).isEqualTo(300_000_000_000L);
        assertThat(timeoutNs(backings, "90s", config)).isEqualTo(90_000_000_000L);
        assertThat(resolveBackings(backings, "90s", null).get("b"))
                .isInstanceOf(io.blockcache.backing.BackingLocation.File.class);
        assertThatThrownBy(() -> resolveBackings(backings, "soon", null)).hasMessageStartingWith(
                "--nbd-backing-timeout: not a duration: \"soon\"").hasMessageNotContaining("\n");
        assertThatThrownBy(() -> resolveBackings(backings, "0", null))
                .hasMessage("--nbd-backing-timeout: duration \"0\" must be positive and at most a year");
        assertThatThrownBy(() -> resolveBackings(backings, "25h", null))
                .hasMessage("--nbd-backing-timeout: must be from 1s to 24h, got \"25h\"");
    }

    @Test
    void theS3RetryTimeIsAConfigKeyForEveryS3BackingAndValidated() throws Exception {
        // Proves s3-retry-time: 120 s by default, the config key applied to every s3:// backing, and a value that is
        // no duration or longer than a day refused in one line naming the key.
        List<String> backings = List.of("a=s3://bucket/a", "b=" + dir.resolve("b.img"));
        assertThat(retryTimeMs(backings, null)).isEqualTo(120_000L);
        Path config = dir.resolve("retry.properties");
        Files.writeString(config, "s3-retry-time=10m\n");
        assertThat(retryTimeMs(backings, config)).isEqualTo(600_000L);
        Files.writeString(config, "s3-retry-time=soon\n");
        assertThatThrownBy(() -> resolveBackings(backings, null, config))
                .hasMessageStartingWith(config + ": s3-retry-time=soon: not a duration: \"soon\"")
                .hasMessageNotContaining("\n");
        Files.writeString(config, "s3-retry-time=25h\n");
        assertThatThrownBy(() -> resolveBackings(backings, null, config))
                .hasMessage(config + ": s3-retry-time=25h: must be from 1s to 24h, got \"25h\"");
    }

    private static long retryTimeMs(List<String> backings, Path config) throws Exception {
        return ((BackingLocation.S3) resolveBackings(backings, null, config).get("a")).options().retryTimeMs();
    }

    private static long timeoutNs(List<String> backings, String flag, Path config) throws Exception {
        return ((io.blockcache.backing.BackingLocation.Nbd) resolveBackings(backings, flag, config).get("a"))
                .requestTimeoutNs();
    }

    private static Map<String, io.blockcache.backing.BackingLocation> resolveBackings(List<String> backings,
            String flag, Path config) throws Exception {
        List<String> args = new java.util.ArrayList<>();
        backings.forEach(backing -> args.addAll(List.of("--backing", backing)));
        if (flag != null) {
            args.addAll(List.of("--nbd-backing-timeout", flag));
        }
        if (config != null) {
            args.addAll(List.of("--config", config.toString()));
        }
        return ServeSettings.resolve(args.toArray(String[]::new)).backings();
    }

    @Test
    void theDamageMapLivesInAFileByDefaultAndAnotherPlacementIsAFlagOrAConfigKey() throws Exception {
        // Proves serve's damage-map placement: file by default (docs/WRITEBACK.md "Where the map lives"), the flag
        // over the config key, and a bad value refused with one line naming the choices.
        assertThat(ServeSettings.resolve().damageMap()).isEqualTo(io.blockcache.host.DamageMapPlacement.FILE);
        assertThat(resolve("damage-map=backing\n").damageMap())
                .isEqualTo(io.blockcache.host.DamageMapPlacement.BACKING);
        assertThat(resolve("damage-map=backing\n", "--damage-map", "off").damageMap())
                .isEqualTo(io.blockcache.host.DamageMapPlacement.OFF);
        assertThatThrownBy(() -> ServeSettings.resolve("--damage-map", "nfs"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--damage-map: must be one of off, backing, file; got \"nfs\"");
    }

    @Test
    void nbdLimitsComeFromFlagsOverTheConfigOverDefaultsAndBadOnesGetOneLine() throws Exception {
        // Proves every --nbd-* limit is read (flag over config over default), 0/off turns a timeout off, and a
        // bad value is refused naming its flag.
        ServeSettings settings = resolve("nbd-idle-timeout=off\nnbd-connections-max=100\nnbd-buffer-max=512M\n",
                "--nbd-connections-max", "50", "--nbd-handshake-timeout", "5s", "--nbd-reply-timeout", "0",
                "--nbd-keepalive", "2m", "--nbd-connections-per-address-max", "10");
        io.blockcache.nbd.NbdLimits limits = settings.nbdLimits();
        assertThat(limits.handshakeTimeout()).hasSeconds(5);
        assertThat(limits.idleTimeout()).isZero();
        assertThat(limits.replyStallTimeout()).isZero();
        assertThat(limits.tcpKeepaliveIdle()).hasMinutes(2);
        assertThat(limits.connectionsMax()).isEqualTo(50);
        assertThat(limits.connectionsPerAddressMax()).isEqualTo(10);
        assertThat(limits.bufferBytesMax()).isEqualTo(512L << 20);
        assertThat(ServeSettings.resolve().nbdLimits())
                .isEqualTo(io.blockcache.nbd.NbdLimits.DEFAULTS); // the tests' JVM has room for the default budget
        assertThat(NbdLimitSettings.defaultBufferBytes(256)).isEqualTo(256L << 20);
        assertThat(NbdLimitSettings.defaultBufferBytes(1 << 30)) // far too many connections' buffers: the minimum
                .isEqualTo(io.blockcache.nbd.NbdLimits.BUFFER_BYTES_MIN);
        assertThatThrownBy(() -> ServeSettings.resolve("--nbd-handshake-timeout", "0"))
                .hasMessageContaining("--nbd-handshake-timeout");
        assertThatThrownBy(() -> ServeSettings.resolve("--nbd-connections-max", "many"))
                .hasMessage("--nbd-connections-max: 'many' is not an int");
        assertThatThrownBy(() -> ServeSettings.resolve("--nbd-buffer-max", "1M"))
                .hasMessageStartingWith("NBD limits: the NBD buffer budget must be");
        assertThatThrownBy(() -> ServeSettings.resolve("--nbd-connections-per-address-max", "300"))
                .hasMessageContaining("connections per address must be 1..256");
        assertThat(NbdLimitSettings.directMemoryProblem(io.blockcache.nbd.NbdLimits.DEFAULTS.withBufferBytesMax(
                1L << 40))).contains("raise -XX:MaxDirectMemorySize");
    }

    @Test
    void flagsWinOverTheConfigFileWhichWinsOverDefaults() throws Exception {
        // Proves precedence and the config file's keys, including knob lines and a list of backings.
        ServeSettings settings = resolve(String.join("\n", "data-dir=/srv/bc", "cache-size=64M", "mode=writethrough",
                "backing=a=/srv/a.img,b=/srv/b.img", "nbd-listen=127.0.0.1:7000", "knob.volume.a.mode=none"),
                "--nbd-listen", "127.0.0.1:0");
        assertThat(settings.cacheFile()).isEqualTo(Path.of("/srv/bc/cache.img"));
        assertThat(settings.cacheSizeBytes()).isEqualTo(64L << 20);
        assertThat(settings.mode()).isEqualTo(CacheMode.WRITETHROUGH);
        assertThat(settings.backings()).containsExactly(
                Map.entry("a", new BackingLocation.File(Path.of("/srv/a.img"))),
                Map.entry("b", new BackingLocation.File(Path.of("/srv/b.img"))));
        assertThat(settings.nbdListen().getPort()).isZero();
        assertThat(settings.knobs()).isEqualTo(Map.of("volume.a.mode", "none"));

        assertThatThrownBy(() -> resolve("cache-sise=64M\n")).hasMessageContaining("unknown key \"cache-sise\"")
                .hasMessageContaining("serve.properties");
    }

    @Test
    void remoteBindsNeedAllowRemoteAndBadValuesSayWhatIsAccepted() throws Exception {
        // Proves the loopback rule (with its reason) and the messages for malformed values.
        assertThatThrownBy(() -> ServeSettings.resolve("--nbd-listen", "0.0.0.0:10809"))
                .hasMessageContaining("not a loopback address").hasMessageContaining("--allow-remote");
        assertThatThrownBy(() -> ServeSettings.resolve("--backing", "nofile"))
                .hasMessageContaining("--backing: must be NAME=URI");
        assertThatThrownBy(() -> ServeSettings.resolve("--backing", "a=gs://bucket/x"))
                .hasMessageContaining("unknown scheme \"gs:\"").hasMessageContaining("known: file, nbd, s3");
        assertThatThrownBy(() -> ServeSettings.resolve("--backing", "a=nbd://host:99999/x"))
                .hasMessageContaining("nbd://host:99999/x");
        assertThatThrownBy(() -> ServeSettings.resolve("--backing", "a=/x.img", "--backing", "a=/y.img"))
                .hasMessage("export name \"a\" is given twice");
        assertThatThrownBy(() -> ByteSizes.parse("lots")).hasMessageContaining("not a size");
        assertThat(ByteSizes.parse("8GiB")).isEqualTo(8L << 30);
        assertThat(ByteSizes.parse("4096")).isEqualTo(4096);
    }

    private static ServeSettings remote(String nbd, String admin, String... more) {
        List<String> args = new java.util.ArrayList<>(List.of("--allow-remote", "--nbd-listen", nbd));
        if (admin != null) {
            args.addAll(List.of("--admin-listen", admin));
        }
        args.addAll(List.of(more));
        return ServeSettings.resolve(args.toArray(String[]::new));
    }

    @Test
    void allowRemoteNeedsTlsRequireAndAnAdminTokenOrInsecure() throws Exception {
        // Proves --allow-remote refuses to start without --tls=require and an admin token, naming
        // each part that is missing in one line, even with both listeners on loopback; --insecure overrides it;
        // with both it starts, the admin API off loopback included.
        Path keys = Files.writeString(dir.resolve("keys.psk"), "alice:" + "ab".repeat(32) + "\n");
        Path token = AccessSettingsTest.tokenFile(dir, "0123456789abcdef0123456789abcdef");
        String[] psk = {"--tls", "require", "--tls-psk", keys.toString()};
        assertThatThrownBy(() -> remote("0.0.0.0:10809", null))
                .hasMessage("--allow-remote (NBD on 0.0.0.0, admin API on 127.0.0.1) needs TLS for NBD (--tls=require"
                        + " with --tls-certificates DIR or --tls-psk FILE; it is --tls=off) and an admin API token"
                        + " (--admin-token-file FILE), or --insecure if the network is trusted: anyone who reaches it"
                        + " could read or change the volumes");
        assertThatThrownBy(() -> remote("0.0.0.0:10809", null, psk))
                .hasMessageContaining("needs an admin API token (--admin-token-file FILE), or --insecure")
                .message().doesNotContain("TLS for NBD");
        assertThatThrownBy(() -> remote("127.0.0.1:10809", "127.0.0.1:10810", "--tls", "on", "--tls-psk",
                keys.toString(), "--admin-token-file", token.toString()))
                .hasMessageContaining("needs TLS for NBD (--tls=require with --tls-certificates DIR or --tls-psk FILE;"
                        + " it is --tls=on), or --insecure").message().doesNotContain("token");
        assertThat(remote("0.0.0.0:10809", "0.0.0.0:10810", "--insecure").nbdListen().getPort())
                .isEqualTo(10809);
        ServeSettings secure = remote("0.0.0.0:10809", "0.0.0.0:10810", "--tls", "require", "--tls-psk",
                keys.toString(), "--admin-token-file", token.toString());
        assertThat(secure.tls().mode()).isEqualTo(io.blockcache.nbd.TlsMode.REQUIRE);
        assertThat(secure.tls().credentials().description()).isEqualTo("PSK, 1 identity");
        assertThat(secure.access().adminToken().accepts("Bearer 0123456789abcdef0123456789abcdef")).isTrue();
        // Without --allow-remote nothing is asked for on loopback.
        assertThat(ServeSettings.resolve("--nbd-listen", "127.0.0.1:0").access().adminToken()).isNull();
    }

    @Test
    void tlsFlagMistakesAreOneLineErrors() throws Exception {
        // Proves each TLS flag mistake stops serve with a line that names the flag.
        Path keys = Files.writeString(dir.resolve("keys.psk"), "alice:" + "ab".repeat(32) + "\n");
        Map<List<String>, String> cases = Map.of(
                List.of("--tls", "maybe"), "--tls: must be one of off, on, require; got \"maybe\"",
                List.of("--tls", "require"), "--tls=require needs --tls-certificates DIR or --tls-psk FILE",
                List.of("--tls-psk", keys.toString()), "was given but --tls is off",
                List.of("--tls", "on", "--tls-certificates", dir.toString(), "--tls-psk", keys.toString()), "not both",
                List.of("--tls", "on", "--tls-psk", keys.toString(), "--tls-verify-peer"),
                "--tls-verify-peer needs --tls-certificates",
                List.of("--tls", "on", "--tls-certificates", dir.resolve("none").toString()), "is not a directory");
        for (Map.Entry<List<String>, String> c : cases.entrySet()) {
            List<String> args = new java.util.ArrayList<>(c.getKey());
            args.addAll(List.of("--nbd-listen", "127.0.0.1:0"));
            assertThatThrownBy(() -> ServeSettings.resolve(args.toArray(String[]::new)))
                    .as(c.getKey().toString()).hasMessageContaining(c.getValue()).message().doesNotContain("\n");
        }
        assertThat(resolve("tls=on\ntls-psk=" + keys + "\n", "--nbd-listen", "127.0.0.1:0").tls().mode())
                .isEqualTo(io.blockcache.nbd.TlsMode.ON);
    }
}
