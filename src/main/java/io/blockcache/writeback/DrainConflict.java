package io.blockcache.writeback;

/**
 * An operator's drain request that the drain's state does not allow (a second drain with other limits, a pause with
 * no drain running): a typed refusal, answered 409 with its message and nothing changed. It is not an invariant
 * failure; those stay {@link IllegalStateException} and stop the cache (fail-stop), and no request handler may catch
 * them (rules.ErrorKindsTest).
 */
public final class DrainConflict extends RuntimeException {
    private static final long serialVersionUID = 1L;

    DrainConflict(String message) {
        super(message);
    }
}
