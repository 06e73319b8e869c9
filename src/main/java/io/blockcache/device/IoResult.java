package io.blockcache.device;

import java.util.Objects;

/**
 * The outcome of one device request: {@link IoStatus#OK} or an error with a message that says what and
 * where. Successful results are one shared instance, so the hot path allocates nothing.
 *
 * @param status what happened
 * @param message for errors, a human-readable explanation; empty for {@link #OK}
 */
public record IoResult(IoStatus status, String message) {
    /** The one instance for a successful request. */
    public static final IoResult OK = new IoResult(IoStatus.OK, "");

    public IoResult {
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(message, "message");
    }

    /** Returns an error result; {@code status} must not be {@link IoStatus#OK}. */
    public static IoResult error(IoStatus status, String message) {
        if (status == IoStatus.OK) {
            throw new IllegalArgumentException("an error result needs an error status");
        }
        return new IoResult(status, message);
    }

    /** Returns true if the request completed as asked. */
    public boolean ok() {
        return status == IoStatus.OK;
    }

    @Override
    public String toString() {
        return ok() ? "OK" : status + ": " + message;
    }
}
