package io.blockcache.sim;

/**
 * A broken durability or read contract found by the harness. Its message names the seed, the step, the
 * request and the sector, with the expected set and the value found, so the run can be replayed from the seed.
 */
public final class ContractViolation extends AssertionError {
    /** A violation with a full replay message. */
    public ContractViolation(String message) {
        super(message);
    }
}
