package io.blockcache.engine;

import java.util.Objects;

/**
 * The result of a long asynchronous operation (format, open, shutdown): a value, or an error message that
 * says what was found and what was expected.
 *
 * @param value the result when successful, else null
 * @param error the error message when failed, else null
 */
public record Outcome<T>(T value, String error) {
    /** A success carrying {@code value}. */
    public static <T> Outcome<T> ok(T value) {
        return new Outcome<>(value, null);
    }

    /** A failure with a message. */
    public static <T> Outcome<T> failed(String error) {
        return new Outcome<>(null, Objects.requireNonNull(error, "error"));
    }

    /** True if the operation succeeded. */
    public boolean isOk() {
        return error == null;
    }

    /** The value; throws {@link IllegalStateException} with the error message if the operation failed. */
    public T orThrow() {
        if (error != null) {
            throw new IllegalStateException(error);
        }
        return value;
    }
}
