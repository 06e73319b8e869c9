package io.blockcache.interop;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** The {@code blockcache} command line as a separate JVM: a real second process, as an operator's would be. */
final class CliProcess {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private CliProcess() {
    }

    /** Runs {@code blockcache ARGS} in {@code workDir} and waits (bounded) for it to end. */
    static ExternalTool.Run run(Path workDir, String... args) throws IOException, InterruptedException {
        return run(workDir, java.util.Map.of(), args);
    }

    /** {@link #run(Path, String...)} with more environment variables for the child. */
    static ExternalTool.Run run(Path workDir, java.util.Map<String, String> environment, String... args)
            throws IOException, InterruptedException {
        String java = ProcessHandle.current().info().command().orElseThrow();
        List<String> command = new ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path"),
                "io.blockcache.cli.Main"));
        command.addAll(List.of(args));
        return ExternalTool.run(workDir, TIMEOUT, command, environment);
    }
}
