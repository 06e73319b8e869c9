package io.blockcache.cli;

import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Model.CommandSpec;

/** What {@code get} and {@code set} print: the knob table, and errors from the admin API made readable. */
final class KnobOutput {
    private KnobOutput() {
    }

    /** Every knob of a {@code GET /api/knobs} answer: name, value, description, one per line. */
    static String table(Map<?, ?> answer) {
        List<?> knobs = (List<?>) answer.get("knobs");
        int nameWidth = 4;
        int valueWidth = 5;
        for (Object item : knobs) {
            Map<?, ?> knob = (Map<?, ?>) item;
            nameWidth = Math.max(nameWidth, String.valueOf(knob.get("name")).length());
            valueWidth = Math.max(valueWidth, String.valueOf(knob.get("value")).length());
        }
        StringBuilder out = new StringBuilder();
        String format = "%-" + nameWidth + "s  %-" + valueWidth + "s  %s%n";
        out.append(String.format(format, "NAME", "VALUE", "DESCRIPTION"));
        for (Object item : knobs) {
            Map<?, ?> knob = (Map<?, ?>) item;
            out.append(String.format(format, knob.get("name"), knob.get("value"), knob.get("description")));
        }
        return out.toString();
    }

    /** Prints the error of a non-200 answer (with what is allowed, or which knobs exist) and returns 1. */
    static int fail(CommandSpec spec, String verb, AdminClient.Response response) {
        StringBuilder message = new StringBuilder(AdminClient.errorMessage(response));
        try {
            if (JsonReader.parse(response.body()) instanceof Map<?, ?> map) {
                if (map.get("allowed") != null) {
                    message.append("\n  allowed: ").append(map.get("allowed"));
                }
                if (map.get("knobs") instanceof List<?> names) {
                    message.append("\n  knobs: ")
                            .append(String.join(", ", names.stream().map(String::valueOf).toList()));
                }
            }
        } catch (IllegalArgumentException notJson) {
            // errorMessage already showed the raw body.
        }
        return fail(spec, verb, message.toString());
    }

    /**
     * Prints the one-line {@code warning} of a 200 answer (a deprecated knob name: which name to use instead) on
     * stderr, as {@code blockcache VERB: warning: ...}, so that stdout stays the value (or the JSON).
     */
    static void warn(CommandSpec spec, String verb, String body) {
        if (JsonReader.parse(body) instanceof Map<?, ?> map && map.get("warning") != null) {
            PrintWriter err = spec.commandLine().getErr();
            err.println("blockcache " + verb + ": warning: " + map.get("warning"));
            err.flush();
        }
    }

    /** Prints {@code blockcache VERB: message} on stderr and returns 1. */
    static int fail(CommandSpec spec, String verb, String message) {
        PrintWriter err = spec.commandLine().getErr();
        err.println("blockcache " + verb + ": " + message);
        err.flush();
        return 1;
    }
}
