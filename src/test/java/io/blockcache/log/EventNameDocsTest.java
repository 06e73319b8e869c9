package io.blockcache.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The event table of docs/OPERATIONS.md "Logs" and {@link EventName} say the same: every name, its levels and its
 * fields; and every name is logged somewhere. Code cannot log a name that is not an {@link EventName} ({@link LogEvent}
 * takes nothing else), so a name in the code is a name in the table.
 */
class EventNameDocsTest {
    private static final Path OPERATIONS = Path.of("docs/OPERATIONS.md");
    private static final Path SOURCES = Path.of("src/main/java");

    /** One row of the table: the name, its levels, its fields. */
    record Row(String name, String levels, String fields) {
    }

    @Test
    void theTableInOperationsListsEveryEventWithItsLevelsAndFieldsAndNothingElse() throws IOException {
        // Proves the docs' table and EventName agree, row by row, in both directions.
        assertThat(problems(table(Files.readString(OPERATIONS)))).isEmpty();
    }

    @Test
    void theCheckCatchesAMissingRowAnExtraRowAndAWrongField() throws IOException {
        // Proves the check above can fail: a table with drain.done's row gone, a made-up row and nbd.connect's
        // fields changed gives one problem each.
        String text = Files.readString(OPERATIONS);
        String doctored = text.lines().filter(line -> !line.startsWith("| `drain.done` "))
                .map(line -> line.startsWith("| `nbd.connect` ") ? "| `nbd.connect` | info | `peer` | x |" : line)
                .collect(Collectors.joining("\n", "", "\n"))
                .replace("| `log.dropped` ", "| `made.up` | info | — | x |\n| `log.dropped` ");
        assertThat(problems(table(doctored))).hasSize(3)
                .anySatisfy(p -> assertThat(p).contains("drain.done").contains("not in the table"))
                .anySatisfy(p -> assertThat(p).contains("made.up").contains("no such EventName"))
                .anySatisfy(p -> assertThat(p).contains("nbd.connect").contains("fields"));
    }

    @Test
    void everyEventNameIsLoggedSomewhere() throws IOException {
        // Proves no row of the table is dead: each EventName constant is used by production code outside its enum.
        String code;
        try (Stream<Path> files = Files.walk(SOURCES)) {
            code = files.filter(p -> p.toString().endsWith(".java") && !p.endsWith("log/EventName.java"))
                    .map(EventNameDocsTest::read).collect(Collectors.joining("\n"));
        }
        assertThat(Arrays.stream(EventName.values()).filter(name -> !code.contains("EventName." + name.name()))
                .map(EventName::id)).as("event names no code logs").isEmpty();
    }

    /** The rows of the event table in the "Logs" section. */
    static Map<String, Row> table(String operations) {
        int start = operations.indexOf("### Logs\n");
        int end = operations.indexOf("\n## ", start);
        Map<String, Row> rows = new LinkedHashMap<>();
        for (String line : operations.substring(start, end).lines().toList()) {
            if (!line.startsWith("| `")) {
                continue;
            }
            String[] cells = line.split("\\|");
            String name = cells[1].strip().replace("`", "");
            rows.put(name, new Row(name, cells[2].strip(), cells[3].strip()));
        }
        return rows;
    }

    /** Every disagreement between {@code rows} and {@link EventName}, one line each. */
    static List<String> problems(Map<String, Row> rows) {
        List<String> problems = new ArrayList<>();
        Map<String, EventName> names = Arrays.stream(EventName.values())
                .collect(Collectors.toMap(EventName::id, name -> name, (a, b) -> a, LinkedHashMap::new));
        for (EventName name : names.values()) {
            Row row = rows.get(name.id());
            if (row == null) {
                problems.add(name.id() + " is not in the table");
                continue;
            }
            String levels = Stream.concat(Stream.of(name.level()), name.levels().stream()
                    .filter(level -> level != name.level())).map(Level::label).collect(Collectors.joining(", "));
            if (!row.levels().equals(levels)) {
                problems.add(name.id() + ": levels are \"" + levels + "\", the table says \"" + row.levels() + "\"");
            }
            String fields = name.fields().isEmpty() ? "—"
                    : name.fields().stream().map(f -> "`" + f + "`").collect(Collectors.joining(" "));
            if (!row.fields().equals(fields)) {
                problems.add(name.id() + ": fields are \"" + fields + "\", the table says \"" + row.fields() + "\"");
            }
        }
        for (String name : rows.keySet()) {
            if (!names.containsKey(name)) {
                problems.add(name + " is in the table but is no such EventName");
            }
        }
        return problems;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
