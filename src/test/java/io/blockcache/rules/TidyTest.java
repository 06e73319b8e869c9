package io.blockcache.rules;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The tidy rules, after TigerBeetle's {@code tidy.zig}: every text file under {@code src/main} and {@code src/test}
 * has lines of at most {@value #COLUMNS_MAX} columns, no tabs, no trailing whitespace, and cites no document outside
 * this repository; the documents ({@code README.md}, {@code docs/*.md}) cite none either.
 */
class TidyTest {
    /** The line limit of docs/ARCHITECTURE.md §7. */
    static final int COLUMNS_MAX = 120;
    /**
     * Citations of files that are not in this repository: the old design notes and the seed files behind them
     * (their content is in docs/ARCHITECTURE.md, the seeds are cited as the public threads they are), and the
     * style guide. Each alternative is written so that this source does not match itself.
     */
    static final Pattern OUTSIDE_CITATION = Pattern.compile(
            "DESIGN\\.md|DESIGN ?§|DESIGN/+\\w|seeds?/0|seed[ _-]?00[0-9]|shared/+seeds|(?<![A-Za-z_])STYLE\\.md",
            Pattern.CASE_INSENSITIVE);

    @Test
    void sourcesAreTidy() throws IOException {
        // Proves every file under src/ keeps the tidy rules (the list names file and line of each problem).
        List<String> problems = new ArrayList<>();
        for (String root : List.of("src/main", "src/test")) {
            try (Stream<Path> files = Files.walk(Path.of(root))) {
                files.filter(Files::isRegularFile).sorted().forEach(file -> problems.addAll(problems(file.toString(),
                        read(file), true)));
            }
        }
        assertThat(problems).isEmpty();
    }

    @Test
    void documentsCiteOnlyThisRepositoryOrPublicSources() throws IOException {
        // Proves README.md and docs/*.md cite no file outside the repository (tables may be wide, so only citations).
        List<String> problems = new ArrayList<>(problems("README.md", read(Path.of("README.md")), false));
        try (Stream<Path> files = Files.list(Path.of("docs"))) {
            files.filter(f -> f.toString().endsWith(".md")).sorted()
                    .forEach(file -> problems.addAll(problems(file.toString(), read(file), false)));
        }
        assertThat(problems).isEmpty();
    }

    @Test
    void eachRuleReportsItsProblem() {
        // Proves the checks can fail: a fixture text breaking each rule once yields exactly those four problems.
        String fixture = "ok line\n"
                + "x".repeat(COLUMNS_MAX + 1) + "\n"
                + "\tindented with a tab\n"
                + "trailing space \n"
                + "see " + "DESIGN" + ".md §4\n"
                + "x".repeat(COLUMNS_MAX) + "\n";
        assertThat(problems("Fixture.java", fixture, true)).containsExactly(
                "Fixture.java:2: 121 columns (max 120)",
                "Fixture.java:3: tab",
                "Fixture.java:4: trailing whitespace",
                "Fixture.java:5: cites a file outside this repository: " + "DESIGN" + ".md");
        assertThat(problems("Fixture.java", "after the " + "seed" + " 002 patch\n", true)).hasSize(1);
        assertThat(problems("Fixture.java", " * the queue (" + "seed\n * 003): enough\n", true)).containsExactly(
                "Fixture.java:1: cites a file outside this repository across lines: " + "seed" + " 003");
        assertThat(problems("Fixture.java", "runs 8 seeds/s, seed 42, TIGER_STYLE.md\n", true)).isEmpty();
        assertThat(problems("Fixture.md", "x".repeat(COLUMNS_MAX + 1) + "\n", false)).isEmpty();
    }

    /** The problems of one file's text, one string per problem: {@code name:line: what}. */
    static List<String> problems(String name, String text, boolean layout) {
        List<String> found = new ArrayList<>();
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            String where = name + ":" + (i + 1) + ": ";
            int columns = line.codePointCount(0, line.length());
            if (layout && columns > COLUMNS_MAX) {
                found.add(where + columns + " columns (max " + COLUMNS_MAX + ")");
            }
            if (layout && line.indexOf('\t') >= 0) {
                found.add(where + "tab");
            }
            if (layout && !line.isEmpty() && Character.isWhitespace(line.charAt(line.length() - 1))) {
                found.add(where + "trailing whitespace");
            }
            var citation = OUTSIDE_CITATION.matcher(line);
            if (citation.find()) {
                found.add(where + "cites a file outside this repository: " + citation.group());
            }
            if (i + 1 < lines.length) {
                // A citation wrapped at the line break ("... seed" / "* 003 ...") hides from a check per line.
                String joined = line + " " + CONTINUATION.matcher(lines[i + 1]).replaceFirst("");
                var wrapped = OUTSIDE_CITATION.matcher(joined);
                while (wrapped.find()) {
                    if (wrapped.start() < line.length() && wrapped.end() > line.length()) {
                        found.add(where + "cites a file outside this repository across lines: " + wrapped.group());
                    }
                }
            }
        }
        return found;
    }

    /** What starts a continued comment or quoted line: indentation and a Javadoc star, slashes, hash or quote mark. */
    private static final Pattern CONTINUATION = Pattern.compile("^\\s*(\\*|//+|#|>)?\\s*");

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(file.toString(), e);
        }
    }
}
