package io.blockcache.interop;

/**
 * A rule the process fuzz found broken (a read the reference model does not allow, lost durable data, a failed
 * request, a stall, a backing file that differs after the final drain). Its message names the seed, where the run
 * was and the replay command.
 */
final class ProcessFuzzViolation extends AssertionError {
    ProcessFuzzViolation(String message) {
        super(message);
    }
}
