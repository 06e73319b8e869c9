package io.blockcache.engine;

import java.util.ArrayList;
import java.util.List;

/**
 * Problems and notes collected by an inspection, each list bounded so that a badly damaged cache yields a
 * readable report instead of millions of lines; what is left out is counted in a last line.
 */
final class Problems {
    /** Lines kept per list: enough to see the pattern of any damage. */
    static final int LINES_MAX = 100;

    private final List<String> problems = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();
    private long problemsDropped;
    private long notesDropped;

    void add(String problem) {
        if (problems.size() < LINES_MAX) {
            problems.add(problem);
        } else {
            problemsDropped++;
        }
    }

    void note(String note) {
        if (notes.size() < LINES_MAX) {
            notes.add(note);
        } else {
            notesDropped++;
        }
    }

    boolean any() {
        return !problems.isEmpty();
    }

    List<String> problems() {
        return withDropped(problems, problemsDropped, "problems");
    }

    List<String> notes() {
        return withDropped(notes, notesDropped, "notes");
    }

    private static List<String> withDropped(List<String> lines, long dropped, String what) {
        if (dropped == 0) {
            return lines;
        }
        List<String> out = new ArrayList<>(lines);
        out.add("... and " + dropped + " more " + what);
        return out;
    }
}
