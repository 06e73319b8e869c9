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
import org.junit.jupiter.api.io.TempDir;

/**
 * The tidy rules, after TigerBeetle's {@code tidy.zig}: every text file under {@code src/main} and {@code src/test}
 * has lines of at most {@value #COLUMNS_MAX} columns, no tabs, no trailing whitespace, and cites no document outside
 * this repository; the documents ({@code README.md}, {@code docs/*.md}) cite none either. No file of the repository
 * names a work session or an issue by its number (a reader cannot follow one: say the date, the commit or the
 * reason), and every relative link of the documents leads to a file, and a heading, that exists.
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
        // Proves README.md and docs/**/*.md cite no file outside the repository (tables may be wide, so only
        // citations).
        List<String> problems = new ArrayList<>();
        for (Path file : documents()) {
            problems.addAll(problems(file.toString(), read(file), false));
        }
        assertThat(problems).isEmpty();
    }

    @Test
    void noFileNamesASessionOrAnIssueByNumber() throws IOException {
        // Proves no text file of the repository's sources, documents, scripts and packaging says "session N" or
        // "issue N" (also wrapped across a line break); the list names file and line of each.
        List<String> problems = new ArrayList<>();
        for (Path file : repositoryTextFiles()) {
            problems.addAll(numberedReferences(file.toString(), read(file)));
        }
        assertThat(problems).isEmpty();
    }

    @Test
    void documentLinksLeadToFilesAndHeadingsThatExist() throws IOException {
        // Proves every relative link in README.md and docs/**/*.md names a file of the repository, and, with a
        // #fragment, a heading of that file (GitHub's anchors); links to web pages are not followed.
        List<String> problems = new ArrayList<>();
        for (Path file : documents()) {
            problems.addAll(brokenLinks(file, read(file)));
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

    @Test
    void numberedSessionsAndIssuesAreReported() {
        // Proves the check can fail: each spelling of a numbered session or issue is reported once, with its line,
        // also when a comment wraps between the word and the number; dates, words alone and URLs pass.
        String session = "ses" + "sion";
        String issue = "iss" + "ue";
        String fixture = "ok line, measured on 2026-12-07 at commit 4d78bd1\n"
                + " * found in " + session + " 12 of the fuzz\n"
                + "// (" + issue + " 10 item 2: no allocation)\n"
                + "# see " + issue + " #42\n"
                + "| " + session + "s 3 and 4 | " + issue.toUpperCase() + "S 5 |\n"
                + " * a comment that wraps the " + issue + "\n"
                + " * 9 onto the next line\n"
                + "this " + session + ", that " + issue + ", " + issue + "s/2739 and 42 " + issue + "s\n";
        assertThat(numberedReferences("Fixture.java", fixture)).containsExactly(
                "Fixture.java:2: names a work " + session + " or an " + issue + " by number: " + session + " 12",
                "Fixture.java:3: names a work " + session + " or an " + issue + " by number: " + issue + " 10",
                "Fixture.java:4: names a work " + session + " or an " + issue + " by number: " + issue + " #42",
                "Fixture.java:5: names a work " + session + " or an " + issue + " by number: " + session + "s 3",
                "Fixture.java:5: names a work " + session + " or an " + issue + " by number: "
                        + issue.toUpperCase() + "S 5",
                "Fixture.java:6: names a work " + session + " or an " + issue + " by number across lines: " + issue
                        + " 9");
    }

    @Test
    void brokenLinksAreReported(@TempDir Path dir) throws IOException {
        // Proves the link check can fail: a missing file, a missing heading and a missing heading in another file
        // are reported; a good file link, a good heading (in this file and another), web links and code spans pass.
        Path docs = Files.createDirectories(dir.resolve("docs"));
        Files.writeString(docs.resolve("OTHER.md"), "# Other\n\n## 3. The life of a read (`Volume.read`)\n");
        Path file = docs.resolve("FIXTURE.md");
        String text = "# Fixture\n\n## Current results\n\n"
                + "[ok](OTHER.md) [ok](#current-results) [ok](OTHER.md#3-the-life-of-a-read-volumeread)\n"
                + "[web](https://example.com/x.md) [mail](mailto:a@example.com) `[code](NOPE.md)`\n"
                + "[gone](NOPE.md) [no heading](#nothing-here)\n"
                + "![missing image](img/none.png) [no heading there](OTHER.md#nope)\n";
        Files.writeString(file, text);
        assertThat(brokenLinks(file, text)).containsExactly(
                file + ":7: link to a missing file: NOPE.md",
                file + ":7: link to a missing heading: #nothing-here",
                file + ":8: link to a missing file: img/none.png",
                file + ":8: link to a missing heading: OTHER.md#nope");
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

    /**
     * A work session or an issue named by number: the word, singular or plural, then optional spaces and a hash,
     * then digits (a file name such as {@code bench-<word>17.png} too). Written so that this source does not match
     * itself.
     */
    static final Pattern NUMBERED_REFERENCE = Pattern.compile("\\b(?:sess" + "ions?|iss" + "ues?)[ \\t]*#?[0-9]+",
            Pattern.CASE_INSENSITIVE);

    /** The word alone at the end of a line, whose number may start the next one. */
    private static final Pattern WORD_AT_END = Pattern.compile("\\b(?:sess" + "ions?|iss" + "ues?)[ \\t]*#?$",
            Pattern.CASE_INSENSITIVE);

    /** The numbered sessions and issues in one file's text, one string per mention: {@code name:line: what}. */
    static List<String> numberedReferences(String name, String text) {
        List<String> found = new ArrayList<>();
        String[] lines = text.split("\n", -1);
        String what = "names a work sess" + "ion or an iss" + "ue by number";
        for (int i = 0; i < lines.length; i++) {
            var mention = NUMBERED_REFERENCE.matcher(lines[i]);
            while (mention.find()) {
                found.add(name + ":" + (i + 1) + ": " + what + ": " + mention.group());
            }
            var end = WORD_AT_END.matcher(lines[i]);
            if (i + 1 < lines.length && end.find()) {
                String next = CONTINUATION.matcher(lines[i + 1]).replaceFirst("");
                var wrapped = NUMBERED_REFERENCE.matcher(end.group() + " " + next);
                if (wrapped.lookingAt()) {
                    found.add(name + ":" + (i + 1) + ": " + what + " across lines: "
                            + wrapped.group().replaceAll("\\s+", " "));
                }
            }
        }
        return found;
    }

    /** A Markdown link or image: {@code [text](target)}; the target up to a space or the closing parenthesis. */
    private static final Pattern LINK = Pattern.compile("!?\\[[^\\]]*\\]\\(([^)\\s]+)[^)]*\\)");
    /** A code span, whose brackets are not links. */
    private static final Pattern CODE_SPAN = Pattern.compile("`[^`]*`");

    /** The relative links of one Markdown file that lead nowhere, one string per link: {@code file:line: what}. */
    static List<String> brokenLinks(Path file, String text) {
        List<String> found = new ArrayList<>();
        String[] lines = text.split("\n", -1);
        boolean fenced = false;
        for (int i = 0; i < lines.length; i++) {
            if (lines[i].strip().startsWith("```")) {
                fenced = !fenced;
                continue;
            }
            if (fenced) {
                continue;
            }
            var link = LINK.matcher(CODE_SPAN.matcher(lines[i]).replaceAll(""));
            while (link.find()) {
                String target = link.group(1);
                if (target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
                    continue; // https:, mailto: and the like: not a file of the repository
                }
                int hash = target.indexOf('#');
                String path = hash < 0 ? target : target.substring(0, hash);
                Path linked = path.isEmpty() ? file : file.resolveSibling(path).normalize();
                String where = file + ":" + (i + 1) + ": ";
                if (!Files.exists(linked)) {
                    found.add(where + "link to a missing file: " + target);
                } else if (hash >= 0 && !anchors(linked == file ? text : read(linked))
                        .contains(target.substring(hash + 1))) {
                    found.add(where + "link to a missing heading: " + target);
                }
            }
        }
        return found;
    }

    /** GitHub's anchors of a Markdown text's headings: lower case, punctuation dropped, spaces as hyphens. */
    private static List<String> anchors(String text) {
        List<String> anchors = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (line.matches("^#{1,6} .*")) {
                String heading = line.replaceFirst("^#+ ", "").strip().toLowerCase(java.util.Locale.ROOT);
                anchors.add(heading.replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-'));
            }
        }
        return anchors;
    }

    /** README.md and every Markdown file under docs/. */
    private static List<Path> documents() throws IOException {
        List<Path> documents = new ArrayList<>(List.of(Path.of("README.md")));
        try (Stream<Path> files = Files.walk(Path.of("docs"))) {
            files.filter(f -> f.toString().endsWith(".md")).sorted().forEach(documents::add);
        }
        return documents;
    }

    /** The text files a reader of the repository reads: sources, documents, scripts, packaging, build and CI. */
    private static List<Path> repositoryTextFiles() throws IOException {
        List<Path> found = new ArrayList<>();
        for (String root : List.of("src", "docs", "scripts", "packaging", "bin", ".ci")) {
            if (!Files.isDirectory(Path.of(root))) {
                continue;
            }
            try (Stream<Path> files = Files.walk(Path.of(root))) {
                files.filter(Files::isRegularFile).filter(TidyTest::isText).sorted().forEach(found::add);
            }
        }
        found.add(Path.of("README.md"));
        found.add(Path.of("pom.xml"));
        return found;
    }

    /** Whether a file is text: valid UTF-8 without NUL bytes (images and archives are not). */
    private static boolean isText(Path file) {
        try {
            byte[] bytes = Files.readAllBytes(file);
            for (byte b : bytes) {
                if (b == 0) {
                    return false;
                }
            }
            StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(bytes));
            return true;
        } catch (java.nio.charset.CharacterCodingException e) {
            return false;
        } catch (IOException e) {
            throw new UncheckedIOException(file.toString(), e);
        }
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
