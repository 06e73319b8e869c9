package io.blockcache.rules;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Errors by kind: {@link IllegalStateException} is the invariant failure that stops the cache, so the packages that
 * answer operators — the admin API and the command line — never catch it; an operator's
 * refusal is a type of its own (e.g. writeback.DrainConflict, answered 409). Before 2026-12-07 admin.Drains caught
 * every IllegalStateException as a 409 conflict, so a real invariant failure on that path was reported as a
 * conflict instead of stopping the cache.
 */
class ErrorKindsTest {
    /**
     * Not yet nbd: it catches the IllegalStateException that {@code EventLoop.execute} throws on a stopped loop, a
     * second meaning of the same type that a typed "loop stopped" would end.
     */
    private static final List<String> REQUEST_PACKAGES = List.of("admin", "cli");
    private static final Pattern CATCH_INVARIANT =
            Pattern.compile("catch\\s*\\(([^)]*\\|\\s*)?IllegalStateException\\b");

    @Test
    void requestHandlersNeverCatchTheInvariantFailure() throws IOException {
        // Proves no source file of the request-handling packages catches IllegalStateException (alone or in a
        // multi-catch); shown to break on 2026-12-07 against admin.Drains as it was.
        List<String> found = new ArrayList<>();
        for (String pkg : REQUEST_PACKAGES) {
            try (Stream<Path> files = Files.walk(Path.of("src/main/java/io/blockcache", pkg))) {
                for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                    List<String> lines = Files.readAllLines(file);
                    for (int i = 0; i < lines.size(); i++) {
                        if (CATCH_INVARIANT.matcher(lines.get(i)).find()) {
                            found.add(file + ":" + (i + 1) + ": " + lines.get(i).strip());
                        }
                    }
                }
            }
        }
        assertThat(found).isEmpty();
    }
}
