package io.blockcache.cache;

/**
 * Always-on invariant checks (TigerBeetle's TIGER_STYLE: assertions stay on in production). A failed check is a broken
 * invariant: it throws, and the owning loop stops the cache (fail-stop).
 */
final class Checks {
    private Checks() {
    }

    /**
     * Throws with a message naming one number if {@code condition} is false. Primitive overloads exist because
     * these checks run on every pin, unpin and count change: the varargs form would box and allocate on every
     * call even when the check passes.
     */
    static void check(boolean condition, String format, long value) {
        if (!condition) {
            throw new IllegalStateException(String.format(format, value));
        }
    }

    /** Like {@link #check(boolean, String, long)} with two numbers. */
    static void check(boolean condition, String format, long first, long second) {
        if (!condition) {
            throw new IllegalStateException(String.format(format, first, second));
        }
    }

    /** Like {@link #check(boolean, String, long)} with three numbers. */
    static void check(boolean condition, String format, long first, long second, long third) {
        if (!condition) {
            throw new IllegalStateException(String.format(format, first, second, third));
        }
    }

    /** Throws {@link IllegalStateException} with a formatted message if {@code condition} is false. */
    static void check(boolean condition, String format, Object... args) {
        if (!condition) {
            throw new IllegalStateException(String.format(format, args));
        }
    }
}
