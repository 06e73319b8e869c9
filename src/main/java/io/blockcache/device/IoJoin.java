package io.blockcache.device;

/**
 * Joins several device completions into one: the callback runs once, after the last part, with the first
 * error seen or OK. Parts may be added until {@link #seal()}; a request that splits into pieces adds one
 * part per piece and then seals, so an early completion cannot finish the request too soon.
 *
 * <p>Thread rule: the loop thread.
 */
public final class IoJoin implements IoCallback {
    private final IoCallback callback;
    private int outstanding = 1; // the seal counts as one part
    private IoResult firstError;

    /** Joins parts into {@code callback}. */
    public IoJoin(IoCallback callback) {
        this.callback = callback;
    }

    /** Registers one more part that will call {@link #complete}. */
    public IoJoin add() {
        if (outstanding <= 0) {
            throw new IllegalStateException("part added after the request completed");
        }
        outstanding++;
        return this;
    }

    /** Ends the adding of parts. */
    public void seal() {
        complete(IoResult.OK);
    }

    /** Records an error without a device completion (e.g. a checksum mismatch found by the caller). */
    public void fail(IoResult error) {
        if (firstError == null) {
            firstError = error;
        }
    }

    @Override
    public void complete(IoResult result) {
        if (!result.ok() && firstError == null) {
            firstError = result;
        }
        if (--outstanding == 0) {
            callback.complete(firstError == null ? IoResult.OK : firstError);
        } else if (outstanding < 0) {
            throw new IllegalStateException("request completed more often than it had parts");
        }
    }
}
