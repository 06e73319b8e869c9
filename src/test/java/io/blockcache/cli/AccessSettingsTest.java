package io.blockcache.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blockcache.nbd.AddressRange;
import io.blockcache.nbd.ExportAccess;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admin token file and the exports' allow-lists as {@code serve} reads them (the rules, and bad input):
 * flags and config keys, and a one-line error for each mistake.
 */
class AccessSettingsTest {
    private static final String TOKEN = "0123456789abcdef0123456789abcdef";

    @TempDir
    Path dir;

    /** A token file as an operator makes it: mode 600, one line. */
    static Path tokenFile(Path dir, String token) throws Exception {
        Path file = dir.resolve("admin.token");
        Files.writeString(file, token + "\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        return file;
    }

    /** serve with exports a and b, the config file {@code config} and {@code flags}. */
    private ServeSettings resolve(String config, String... flags) throws Exception {
        Path file = Files.writeString(dir.resolve("serve.properties"), config);
        List<String> args = new java.util.ArrayList<>(List.of("--backing", "a=/srv/a.img", "--backing", "b=/srv/b.img",
                "--nbd-listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0", "--config", file.toString()));
        args.addAll(List.of(flags));
        return ServeSettings.resolve(args.toArray(String[]::new));
    }

    @Test
    void theTokenFileMustHoldOneGoodTokenAndBeTheOwnersAlone() throws Exception {
        // Proves the token is read from a flag or the config key, and each bad file is refused in one line naming
        // it: missing, empty, short, two lines, readable by group or others (as ssh refuses a private key).
        Path good = tokenFile(dir, TOKEN);
        assertThat(resolve("admin-token-file=" + good + "\n").access().adminToken().accepts("Bearer " + TOKEN))
                .isTrue();
        assertThat(resolve("", "--admin-token-file", good.toString()).access().adminTokenFile())
                .isEqualTo(good);
        Path crlf = Files.writeString(dir.resolve("crlf.token"), TOKEN + "\r\n");
        Files.setPosixFilePermissions(crlf, PosixFilePermissions.fromString("r--------"));
        assertThat(AdminTokenFile.read(crlf).accepts("Bearer " + TOKEN)).isTrue();

        Map<String, String> cases = new java.util.LinkedHashMap<>();
        cases.put("", "holds no token (it is empty)");
        cases.put("short\n", "the token has 5 characters; it must have 16 to 1024");
        cases.put(TOKEN + "\n" + TOKEN + "\n", "more than one line");
        cases.put(" " + TOKEN + "\n", "may hold only letters, digits");
        for (Map.Entry<String, String> c : cases.entrySet()) {
            Path file = Files.writeString(dir.resolve("bad.token"), c.getKey());
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
            assertThatThrownBy(() -> resolve("admin-token-file=" + file + "\n")).as(c.getKey())
                    .hasMessageStartingWith("--admin-token-file " + file).hasMessageContaining(c.getValue())
                    .message().doesNotContain("\n").doesNotContain(TOKEN);
        }
        Files.setPosixFilePermissions(good, PosixFilePermissions.fromString("rw-r-----"));
        assertThatThrownBy(() -> resolve("admin-token-file=" + good + "\n"))
                .hasMessage("--admin-token-file " + good + ": permissions rw-r----- are too open (group or others"
                        + " may use it); run chmod 600 " + good);
        Files.setPosixFilePermissions(good, PosixFilePermissions.fromString("rw-----w-"));
        assertThatThrownBy(() -> resolve("admin-token-file=" + good + "\n")).hasMessageContaining("too open");
        assertThatThrownBy(() -> resolve("admin-token-file=" + dir.resolve("none") + "\n"))
                .hasMessageContaining("no such file").hasMessageContaining("openssl rand -hex 32");
        assertThatThrownBy(() -> resolve("admin-token-file=\n")).hasMessageContaining("--admin-token-file is empty");
    }

    @Test
    void allowListsComeFromConfigKeysAndFlagsPerExport() throws Exception {
        // Proves export.NAME.allow-addresses is read per export (IPv4 and IPv6), a flag replaces the config's list
        // for the export it names, and exports without a list stay open.
        ServeSettings settings = resolve("export.a.allow-addresses=127.0.0.0/8, ::1/128\n"
                + "export.b.allow-addresses=10.0.0.0/8\n", "--allow-addresses", "b=192.168.0.0/16,fd00::/8");
        Map<String, ExportAccess> exports = settings.access().exports();
        assertThat(exports.get("a").addresses()).containsExactly(AddressRange.parse("127.0.0.0/8"),
                AddressRange.parse("::1/128"));
        assertThat(exports.get("b").addresses()).containsExactly(AddressRange.parse("192.168.0.0/16"),
                AddressRange.parse("fd00::/8"));
        assertThat(exports.get("a").pskUsers()).isNull();
        assertThat(resolve("").access().exports()).isEmpty();
        assertThat(settings.access().summary()).isEqualTo("no admin token; export a: addresses [127.0.0.0/8,"
                + " ::1/128]; export b: addresses [192.168.0.0/16, fd00::/8]");
    }

    @Test
    void pskUserListsNeedTlsPskAndKnownUsers() throws Exception {
        // Proves export.NAME.allow-psk-users needs --tls-psk and names only users of its file.
        Path keys = Files.writeString(dir.resolve("keys.psk"), "alice:" + "ab".repeat(32) + "\nbob:"
                + "cd".repeat(32) + "\n");
        String tls = "tls=require\ntls-psk=" + keys + "\n";
        assertThat(resolve(tls + "export.a.allow-psk-users=alice\n").access().exports().get("a").pskUsers())
                .isEqualTo(Set.of("alice"));
        assertThat(resolve(tls, "--allow-psk-users", "b=alice,bob").access().exports()
                .get("b").pskUsers()).isEqualTo(Set.of("alice", "bob"));
        // The message names the file too (2026-12-07): every config-file mistake does, as the other keys' do.
        assertThatThrownBy(() -> resolve(tls + "export.a.allow-psk-users=carol\n"))
                .hasMessage(dir.resolve("serve.properties") + ": export.a.allow-psk-users: user \"carol\" is not in"
                        + " the --tls-psk file (its users: [alice, bob])");
        assertThatThrownBy(() -> resolve("export.a.allow-psk-users=alice\n"))
                .hasMessageContaining("export.a.allow-psk-users needs TLS with pre-shared keys");
    }

    @Test
    void everyMistakeIsOneLineNamingTheKey() throws Exception {
        // Proves unknown per-export keys, unknown exports, bad ranges, empty items, malformed flags and non-boolean
        // switches are each refused in one line that names what to fix.
        Map<String, String> cases = new java.util.LinkedHashMap<>();
        // One unknown-key message for every key (2026-12-07): it lists the per-export keys with the others.
        cases.put("export.a.allow-adresses=10.0.0.0/8\n", "unknown key \"export.a.allow-adresses\" in "
                + dir.resolve("serve.properties") + "; known keys: [admin-listen, ");
        cases.put("export.a.allow-adresses=10.0.0.0/8\n ", "knob.NAME, export.NAME.allow-addresses,"
                + " export.NAME.allow-psk-users");
        cases.put("export.allow-addresses=10.0.0.0/8\n", "unknown key \"export.allow-addresses\"");
        cases.put("export.c.allow-addresses=10.0.0.0/8\n", "export.c.allow-addresses: no export is named \"c\""
                + " (exports: [a, b])");
        cases.put("export.a.allow-addresses=10.0.0.1/8\n", "export.a.allow-addresses: address range \"10.0.0.1/8\":"
                + " bits are set after the first 8; did you mean 10.0.0.0/8?");
        cases.put("export.a.allow-addresses=db.example.com\n", "no host names");
        cases.put("export.a.allow-addresses=10.0.0.0/8,,::1\n", "has an empty item");
        cases.put("export.a.allow-addresses=\n", "has an empty item");
        cases.put("allow-remote=yes\n", "serve.properties: allow-remote=yes: must be true or false; got \"yes\"");
        cases.put("insecure=1\n", "serve.properties: insecure=1: must be true or false; got \"1\"");
        cases.put("admin-token=x\n", "unknown key \"admin-token\"");
        for (Map.Entry<String, String> c : cases.entrySet()) {
            assertThatThrownBy(() -> resolve(c.getKey())).as(c.getKey()).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(c.getValue()).message().doesNotContain("\n");
        }
        // picocli splits NAME=LIST of a per-name option (2026-12-07), and says so in its words.
        assertThatThrownBy(() -> resolve("", "--allow-addresses", "10.0.0.0/8"))
                .hasMessageContaining("--allow-addresses").hasMessageContaining("KEY=VALUE format but was 10.0.0.0/8");
        assertThat(resolve("allow-remote=FALSE\n").nbdListen().getAddress()).isEqualTo(InetAddress.getByName(
                "127.0.0.1"));
    }
}
