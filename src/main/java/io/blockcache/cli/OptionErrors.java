package io.blockcache.cli;

import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.TypeConversionException;

/**
 * Bad usage as one line: {@code blockcache serve: --cache-size: not a size: "lots" (...)}, or, for a value from the
 * config file, {@code blockcache serve: /etc/blockcache/blockcache.conf: cache-size=lots: not a size: ...} — the
 * option (or the file, key and value) and the converter's reason, instead of picocli's "Invalid value for option"
 * followed by the whole usage text. An unknown option or a missing one still gets picocli's suggestions and a pointer
 * to {@code --help}. Exit code 2, picocli's for invalid input.
 */
final class OptionErrors implements IParameterExceptionHandler {
    @Override
    public int handleParseException(ParameterException ex, String[] args) {
        CommandLine line = ex.getCommandLine();
        PrintWriter err = line.getErr();
        String command = line.getCommandSpec().qualifiedName();
        err.println(command + ": " + message(ex));
        if (ex instanceof CommandLine.UnmatchedArgumentException
                || ex instanceof CommandLine.MissingParameterException) {
            CommandLine.UnmatchedArgumentException.printSuggestions(ex, err);
            err.println("'" + command + " --help' lists the options.");
        }
        err.flush();
        return line.getCommandSpec().exitCodeOnInvalidInput();
    }

    /** The one-line message for {@code ex}: the option or config key, then the converter's reason. */
    static String message(ParameterException ex) {
        Throwable cause = ex.getCause();
        boolean refused = cause instanceof TypeConversionException || cause instanceof IllegalArgumentException;
        if (!(ex.getArgSpec() instanceof OptionSpec option) || !refused || cause.getMessage() == null) {
            return ex.getMessage();
        }
        String reason = cause.getMessage();
        String source = ex.getCommandLine().getDefaultValueProvider() instanceof ConfigDefaults config
                ? config.source(option) : null;
        if (source != null) {
            return source + ": " + reason;
        }
        return reason.startsWith(option.longestName()) ? reason : option.longestName() + ": " + reason;
    }
}
