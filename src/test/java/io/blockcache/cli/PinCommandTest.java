package io.blockcache.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code blockcache pin}, {@code pin list} and {@code unpin} against {@code serve}, and pins across a restart. */
class PinCommandTest {
    private static final long MIB = 1 << 20;
    @TempDir
    Path dir;
    private final StringWriter errText = new StringWriter();
    private final PrintWriter err = new PrintWriter(errText, true);

    private ServeSettings settings(Path dataDir) throws Exception {
        return ServeSettings.resolve("--data-dir", dataDir.toString(), "--cache-size", "64M", "--backing-size",
                "256M", "--nbd-listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0");
    }

    private static String admin(ServeRuntime runtime) {
        return "127.0.0.1:" + runtime.adminAddress().getPort();
    }

    private static List<?> ranges(String json) {
        return (List<?>) ((Map<?, ?>) JsonReader.parse(json)).get("ranges");
    }

    @Test
    void pinListUnpinAndThePinsSurviveARestart() throws Exception {
        // Proves the commands end to end and the pin file: two pins merge where they touch, list shows them, a pin
        // over the cap and one of an unknown volume exit 1 with the reason, the pins are there again after a restart
        // (pin.restored in the log), and unpin cuts a range.
        Path data = dir.resolve("data");
        ServeRuntime first = ServeRuntime.start(settings(data), err);
        CliRun pin = CliRun.of("pin", "default", "0+1M", "--admin", admin(first));
        assertThat(pin.exitCode()).as(pin.err()).isZero();
        assertThat(pin.out()).startsWith("default: 1048576 bytes pinned (1.0 MiB)").contains("  0+1048576");
        CliRun touching = CliRun.of("pin", "default", "1M+1M", "--admin", admin(first));
        assertThat(touching.exitCode()).as(touching.err()).isZero();
        CliRun apart = CliRun.of("pin", "default", "8M+512K", "--admin", admin(first));
        assertThat(apart.exitCode()).as(apart.err()).isZero();
        CliRun tooMuch = CliRun.of("pin", "default", "16M+200M", "--admin", admin(first));
        assertThat(tooMuch.exitCode()).isEqualTo(1);
        assertThat(tooMuch.err()).contains("over the cap of", "50 %");
        CliRun unknown = CliRun.of("pin", "nope", "0+4K", "--admin", admin(first));
        assertThat(unknown.exitCode()).isEqualTo(1);
        assertThat(unknown.err()).contains("no volume named \"nope\"");
        CliRun badRange = CliRun.of("pin", "default", "4K", "--admin", admin(first));
        assertThat(badRange.exitCode()).isEqualTo(1);
        assertThat(badRange.err()).contains("OFFSET+LENGTH");
        assertThat(first.stop()).as(errText.toString()).isTrue();
        assertThat(Files.readString(data.resolve(PinFile.NAME)))
                .contains("0 2097152 default", "8388608 524288 default");

        ServeRuntime second = ServeRuntime.start(settings(data), err);
        CliRun list = CliRun.of("pin", "list", "default", "--json", "--admin", admin(second));
        assertThat(list.exitCode()).as(list.err()).isZero();
        assertThat(ranges(list.out())).hasSize(2);
        assertThat(((Number) ((Map<?, ?>) JsonReader.parse(list.out())).get("pinnedBytes")).longValue())
                .isEqualTo(2 * MIB + MIB / 2);
        assertThat(errText.toString()).contains("pinned again");
        String metrics = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                java.net.URI.create("http://" + admin(second) + "/metrics")).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString()).body();
        assertThat(metrics).containsPattern("blockcache_pinned_bytes\\{[^}]*volume=\"default\"[^}]*} 2621440");
        CliRun unpin = CliRun.of("unpin", "default", "512K+1M", "--admin", admin(second));
        assertThat(unpin.exitCode()).as(unpin.err()).isZero();
        assertThat(unpin.out()).contains("  0+524288", "  1572864+524288", "  8388608+524288");
        assertThat(second.stop()).isTrue();
        assertThat(Files.readString(data.resolve(PinFile.NAME))).contains("0 524288 default")
                .doesNotContain("0 2097152 default");
    }

    @Test
    void theRemovalOfAVolumeTakesItsPinsOutOfThePinFile() throws Exception {
        // Proves a removed volume's pins leave the pin file when it is removed: they used to stay until the next pin
        // change or start, so a volume of the same name added before a restart was pinned by them at the next start.
        Path data = dir.resolve("data");
        ServeRuntime serve = ServeRuntime.start(settings(data), err);
        CliRun added = CliRun.of("volume", "add", "v2=" + dir.resolve("v2.img"), "--size", "16M", "--admin",
                admin(serve));
        assertThat(added.exitCode()).as(added.err()).isZero();
        assertThat(CliRun.of("pin", "v2", "0+1M", "--admin", admin(serve)).exitCode()).isZero();
        assertThat(CliRun.of("pin", "default", "0+1M", "--admin", admin(serve)).exitCode()).isZero();
        assertThat(Files.readString(data.resolve(PinFile.NAME))).contains("0 1048576 v2", "0 1048576 default");
        CliRun removed = CliRun.of("volume", "remove", "v2", "--drain", "--admin", admin(serve));
        assertThat(removed.exitCode()).as(removed.err()).isZero();
        assertThat(Files.readString(data.resolve(PinFile.NAME))).contains("0 1048576 default")
                .doesNotContain(" v2");
        assertThat(serve.stop()).as(errText.toString()).isTrue();
    }
}
