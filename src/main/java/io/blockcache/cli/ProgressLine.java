package io.blockcache.cli;

import java.io.PrintWriter;
import java.util.function.Consumer;
import java.util.function.DoubleConsumer;

/**
 * Progress of a long operation on stderr: on a terminal one percentage line rewritten in place, otherwise
 * (a log file, a pipe) a line at each quarter so logs stay short. Called on the loop thread.
 */
final class ProgressLine implements DoubleConsumer {
    /** Percent between lines when stderr is not a terminal: four lines per operation. */
    private static final int LOG_STEP_PERCENT = 25;

    private final PrintWriter err;
    private final String what;
    private final boolean terminal;
    /** Where a line goes when stderr is no terminal. */
    private final Consumer<String> lines;
    private int shownPercent = -1;

    ProgressLine(PrintWriter err, String what, boolean terminal) {
        this(err, what, terminal, line -> {
            err.println(line);
            err.flush();
        });
    }

    /** As above, but when stderr is no terminal each line goes to {@code lines} (serve's event log). */
    ProgressLine(PrintWriter err, String what, boolean terminal, Consumer<String> lines) {
        this.err = err;
        this.what = what;
        this.terminal = terminal;
        this.lines = lines;
    }

    @Override
    public void accept(double fraction) {
        int percent = (int) Math.floor(Math.max(0, Math.min(1, fraction)) * 100);
        if (percent == shownPercent) {
            return;
        }
        if (terminal) {
            err.print("\r" + what + ": " + percent + "%" + (percent == 100 ? "\n" : ""));
            err.flush();
            shownPercent = percent;
        } else if (shownPercent < 0 || percent >= shownPercent + LOG_STEP_PERCENT || percent == 100) {
            lines.accept(what + ": " + percent + "%");
            shownPercent = percent;
        }
    }

    /** True if stderr is an interactive terminal (JDK 22+ asks the console; on 21 a console means one). */
    static boolean stderrIsTerminal() {
        java.io.Console console = System.console();
        if (console == null) {
            return false;
        }
        try {
            return (Boolean) java.io.Console.class.getMethod("isTerminal").invoke(console);
        } catch (ReflectiveOperationException e) {
            return true; // JDK 21: System.console() is non-null only for an interactive terminal
        }
    }
}
