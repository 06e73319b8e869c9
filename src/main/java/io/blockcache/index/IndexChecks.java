package io.blockcache.index;

/**
 * Always-on invariant checks for the index. A failed check means a caller broke a contract or the
 * index itself is corrupt; the cache must stop (fail-stop), so these throw instead of logging.
 */
final class IndexChecks {
    private IndexChecks() {}

    /** Throws {@link IllegalStateException} with a formatted message when {@code condition} is false. */
    static void check(boolean condition, String message, Object... args) {
        if (!condition) {
            throw new IllegalStateException("extent index: " + String.format(message, args));
        }
    }

    /** Throws {@link IllegalArgumentException} when an argument is out of contract. */
    static void checkArgument(boolean condition, String message, Object... args) {
        if (!condition) {
            throw new IllegalArgumentException("extent index: " + String.format(message, args));
        }
    }
}
