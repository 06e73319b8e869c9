package io.blockcache.device;

/**
 * The counting half of {@link IoJoin}, for a reused request that is its own join (nothing allocated per
 * steady-state request on the loop thread): parts are counted from {@link #begin} (which counts the seal as one, so
 * an early part cannot finish the request too soon), and {@link #complete} says when the last one is in and with
 * what outcome.
 *
 * <p>Thread rule: the loop thread.
 */
public final class PartCount {
    private int outstanding;
    private IoResult firstError;

    /** Starts counting a new request: one part outstanding, the seal. */
    public void begin() {
        outstanding = 1;
        firstError = null;
    }

    /** Registers one more part. */
    public void add() {
        outstanding++;
    }

    /**
     * Counts one completed part (or the seal).
     *
     * @return null while parts are outstanding; after the last one, the first error seen or OK
     * @throws IllegalStateException if more parts completed than were registered
     */
    public IoResult complete(IoResult result, String what) {
        if (!result.ok() && firstError == null) {
            firstError = result;
        }
        if (--outstanding > 0) {
            return null;
        }
        if (outstanding < 0) {
            throw new IllegalStateException(what + " completed more often than it had parts");
        }
        IoResult outcome = firstError == null ? IoResult.OK : firstError;
        firstError = null;
        return outcome;
    }
}
