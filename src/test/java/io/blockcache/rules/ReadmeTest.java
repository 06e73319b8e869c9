package io.blockcache.rules;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * README.md is what a newcomer reads first: short, and its two commands are the ones that work — the embedded
 * {@code serve}, and exactly the test command that CI ({@code .ci/run}) runs.
 */
class ReadmeTest {
    /** The most lines README.md may have; everything else belongs in docs/. */
    static final int LINES_MAX = 100;

    @Test
    void theReadmeIsShortAndItsCommandsAreServeAndTheCiTestCommand() throws IOException {
        // Proves README.md has at most 100 lines and shows, each in a shell block of its own, `bin/blockcache serve`
        // and the very command .ci/run runs after its "exactly as in README.md" line.
        String readme = Files.readString(Path.of("README.md"));
        assertThat(readme.split("\n", -1).length).as("README.md lines").isLessThanOrEqualTo(LINES_MAX);
        assertThat(readme).contains("```sh\nbin/blockcache serve\n```");
        assertThat(readme).contains("```sh\n" + ciTestCommand(Files.readAllLines(Path.of(".ci/run"))) + "\n```");
    }

    @Test
    void theCiTestCommandIsTheLineAfterItsMarker() {
        // Proves the CI command is read from .ci/run's marker and that a script without the marker is refused.
        assertThat(ciTestCommand(List.of("set -e", "# The test command, exactly as in README.md:", "./mvnw -B test")))
                .isEqualTo("./mvnw -B test");
        assertThat(ciTestCommand(List.of("set -e", "./mvnw -B verify"))).isNull();
    }

    /** The command on the line after {@code .ci/run}'s "exactly as in README.md" comment; null without one. */
    static String ciTestCommand(List<String> script) {
        for (int i = 0; i + 1 < script.size(); i++) {
            if (script.get(i).startsWith("#") && script.get(i).contains("exactly as in README.md")) {
                return script.get(i + 1).strip();
            }
        }
        return null;
    }
}
