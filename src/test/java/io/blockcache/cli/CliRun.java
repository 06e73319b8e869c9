package io.blockcache.cli;

import java.io.PrintWriter;
import java.io.StringWriter;

/** Test helper: one run of the command line with its output and error text captured. */
record CliRun(int exitCode, String out, String err) {
    static CliRun of(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exitCode = Main.commandLine(args).setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true))
                .execute(args);
        return new CliRun(exitCode, out.toString(), err.toString());
    }
}
