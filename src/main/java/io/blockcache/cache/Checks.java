package io.blockcache.cache;

/**
 * Always-on invariant checks (STYLE.md: assertions stay on in production). A failed check is a broken
 * invariant: it throws, and the owning loop stops the cache (fail-stop).
 */
final class Checks {
    private Checks() {
    }

    /** Throws {@link IllegalStateException} with a formatted message if {@code condition} is false. */
    static void check(boolean condition, String format, Object... args) {
        if (!condition) {
            throw new IllegalStateException(String.format(format, args));
        }
    }
}
