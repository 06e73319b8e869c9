package io.blockcache.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.cli.Main;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class DeviceCharacterizationTest {
    @Test
    void sameSeedGivesSameNumbersAndDifferentSeedsDiffer() {
        // Proves the characterization is a pure function of its seed (and that the seed actually matters).
        List<DeviceCharacterization.Row> first = DeviceCharacterization.run(11);
        assertThat(DeviceCharacterization.run(11)).isEqualTo(first);
        assertThat(DeviceCharacterization.run(12)).isNotEqualTo(first);
    }

    @Test
    void cliPrintsOneJsonObjectPerRowWithEveryField() {
        // Proves 'simulate devices --json' prints well-formed rows for every device with every field.
        PrintStream original = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        int exit;
        try {
            System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
            exit = Main.run("simulate", "devices", "--json");
        } finally {
            System.setOut(original);
        }
        assertThat(exit).isZero();
        List<String> lines = captured.toString(StandardCharsets.UTF_8).lines().toList();
        // hdd: 6 random + 2 sequential + 2 zone rows; ssd: 6 random + 2 sequential rows; object store: 4 rows.
        assertThat(lines).hasSize(22);
        String number = "[0-9]+(\\.[0-9]+)?";
        assertThat(lines).allMatch(line -> line.matches("\\{\"device\":\"(hdd|ssd|object)\","
                + "\"pattern\":\"[a-z0-9-]+\",\"queueDepth\":[0-9]+,\"iops\":" + number + ",\"mbPerSecond\":" + number
                + "}"), "row shape");
        assertThat(lines).anyMatch(l -> l.contains("\"pattern\":\"seq-read-inner-zone\""));
        assertThat(lines).anyMatch(l -> l.contains("\"device\":\"ssd\"") && l.contains("\"queueDepth\":32"));
        assertThat(lines).anyMatch(l -> l.contains("\"device\":\"object\"")
                && l.contains("\"pattern\":\"seq-write-chunk-fua\""));
    }
}
