package io.blockcache.fuzz;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The last lines of what a fuzz seed did (requests submitted and completed, control actions, power cuts,
 * phases), bounded so that a long run costs no more memory than a short one. A violation prints them.
 */
final class FuzzTrace {
    /** Lines kept: enough to see the requests around a failure, few enough to read. */
    static final int LINES_MAX = 400;

    private final ArrayDeque<String> lines = new ArrayDeque<>(LINES_MAX);

    /** Appends a line, dropping the oldest beyond {@link #LINES_MAX}. */
    void add(String line) {
        if (lines.size() == LINES_MAX) {
            lines.removeFirst();
        }
        lines.addLast(line);
    }

    /** The lines kept, oldest first. */
    List<String> lines() {
        return new ArrayList<>(lines);
    }
}
