package io.blockcache.fuzz;

import java.util.List;

/**
 * A fuzz seed broke an oracle (or the engine fail-stopped, or a request failed where no fault was injected).
 * Carries everything needed to replay and read it: the seed, what broke, the drawn setup and the last lines of
 * the trace.
 */
public final class FuzzViolation extends RuntimeException {
    private final long seed;
    private final String setup;
    private final List<String> trace;

    FuzzViolation(long seed, String what, String setup, List<String> trace, Throwable cause) {
        super("seed " + seed + ": " + what, cause);
        this.seed = seed;
        this.setup = setup;
        this.trace = List.copyOf(trace);
    }

    /** The seed that fails. */
    public long seed() {
        return seed;
    }

    /** The setup the seed drew, as one line. */
    public String setup() {
        return setup;
    }

    /** The last lines of the trace, oldest first. */
    public List<String> trace() {
        return trace;
    }

    /** The command that replays this seed. */
    public String replayCommand() {
        return "bin/blockcache simulate fuzz --seed " + seed;
    }
}
