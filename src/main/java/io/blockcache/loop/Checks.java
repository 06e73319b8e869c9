package io.blockcache.loop;

/**
 * The one check utility of the project (TigerBeetle's TIGER_STYLE: assertions stay on in production).
 * {@code check} guards invariants and state: a failure is a bug or corrupt state, it throws
 * {@link IllegalStateException}, and the owning loop stops the cache (fail-stop). {@code require} guards
 * arguments and configuration: it throws {@link IllegalArgumentException}. {@link #onLoop} guards the thread
 * rule of the engine's public entry points.
 *
 * <p>Primitive overloads exist because checks run on hot paths (every pin, count change and index operation):
 * the varargs form boxes and allocates on every call even when the check passes. The message is formatted
 * only when a check fails. Any thread.
 */
public final class Checks {
    private Checks() {
    }

    /** Throws {@link IllegalStateException} with {@code message} if {@code condition} is false. */
    public static void check(boolean condition, String message) {
        if (!condition) {
            throw new IllegalStateException(message);
        }
    }

    /** Throws {@link IllegalStateException} with a message naming one number if {@code condition} is false. */
    public static void check(boolean condition, String format, long value) {
        if (!condition) {
            throw new IllegalStateException(String.format(format, value));
        }
    }

    /** Like {@link #check(boolean, String, long)} with two numbers. */
    public static void check(boolean condition, String format, long first, long second) {
        if (!condition) {
            throw new IllegalStateException(String.format(format, first, second));
        }
    }

    /** Like {@link #check(boolean, String, long)} with three numbers. */
    public static void check(boolean condition, String format, long first, long second, long third) {
        if (!condition) {
            throw new IllegalStateException(String.format(format, first, second, third));
        }
    }

    /** Like {@link #check(boolean, String, long)} with four numbers. */
    public static void check(boolean condition, String format, long first, long second, long third, long fourth) {
        if (!condition) {
            throw new IllegalStateException(String.format(format, first, second, third, fourth));
        }
    }

    /** Throws {@link IllegalStateException} with a formatted message if {@code condition} is false (boxes). */
    public static void check(boolean condition, String format, Object... args) {
        if (!condition) {
            throw new IllegalStateException(String.format(format, args));
        }
    }

    /** Throws {@link IllegalArgumentException} with {@code message} if {@code condition} is false. */
    public static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }

    /** Throws {@link IllegalArgumentException} with a message naming one number if {@code condition} is false. */
    public static void require(boolean condition, String format, long value) {
        if (!condition) {
            throw new IllegalArgumentException(String.format(format, value));
        }
    }

    /** Like {@link #require(boolean, String, long)} with two numbers. */
    public static void require(boolean condition, String format, long first, long second) {
        if (!condition) {
            throw new IllegalArgumentException(String.format(format, first, second));
        }
    }

    /** Like {@link #require(boolean, String, long)} with three numbers. */
    public static void require(boolean condition, String format, long first, long second, long third) {
        if (!condition) {
            throw new IllegalArgumentException(String.format(format, first, second, third));
        }
    }

    /** Like {@link #require(boolean, String, long)} with four numbers. */
    public static void require(boolean condition, String format, long first, long second, long third,
                               long fourth) {
        if (!condition) {
            throw new IllegalArgumentException(String.format(format, first, second, third, fourth));
        }
    }

    /** Throws {@link IllegalArgumentException} with a formatted message if {@code condition} is false (boxes). */
    public static void require(boolean condition, String format, Object... args) {
        if (!condition) {
            throw new IllegalArgumentException(String.format(format, args));
        }
    }

    /**
     * Throws {@link IllegalStateException} unless the caller runs on {@code loop}'s thread: the engine's objects
     * belong to one loop and are not thread-safe ({@code LoopCalls.await} is how another thread calls in).
     *
     * @param what the object or entry point, for the message
     */
    public static void onLoop(EventLoop loop, String what) {
        if (!loop.inLoop()) {
            throw new IllegalStateException(what + " called from thread " + Thread.currentThread().getName()
                    + ", not its owning loop's thread (use LoopCalls.await from other threads)");
        }
    }
}
