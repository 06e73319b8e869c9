package io.blockcache.format;

import java.util.Objects;

/**
 * The outcome of decoding bytes: the value, or a {@link DecodeError}. Decoders return this instead of
 * throwing, because damaged bytes on a device are an expected input, not a programming error.
 *
 * @param <T> the decoded structure
 */
public sealed interface DecodeResult<T> {
    /** A successful decode. @param value the decoded structure */
    record Ok<T>(T value) implements DecodeResult<T> {
        public Ok {
            Objects.requireNonNull(value, "value");
        }
    }

    /** A failed decode. @param error what is wrong and where */
    record Failed<T>(DecodeError error) implements DecodeResult<T> {
        public Failed {
            Objects.requireNonNull(error, "error");
        }
    }

    /** Returns a successful result holding {@code value}. */
    static <T> DecodeResult<T> ok(T value) {
        return new Ok<>(value);
    }

    /** Returns a failed result holding {@code error}. */
    static <T> DecodeResult<T> failed(DecodeError error) {
        return new Failed<>(error);
    }

    /** Returns true if decoding succeeded. */
    default boolean isOk() {
        return this instanceof Ok<T>;
    }

    /** Returns the value; throws {@link IllegalStateException} (with the error) if decoding failed. */
    default T value() {
        if (this instanceof Ok<T> ok) {
            return ok.value();
        }
        throw new IllegalStateException("decode failed: " + ((Failed<T>) this).error());
    }

    /** Returns the error; throws {@link IllegalStateException} if decoding succeeded. */
    default DecodeError error() {
        if (this instanceof Failed<T> failed) {
            return failed.error();
        }
        throw new IllegalStateException("decode succeeded; there is no error");
    }
}
