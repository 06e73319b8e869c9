package io.blockcache.loop;

/**
 * A monotonic source of time in nanoseconds.
 *
 * <p>Engine code takes time only from a {@code Clock} (normally its {@link EventLoop}), never from the
 * wall clock, so that the same code runs in real and in simulated time. The origin is arbitrary; only
 * differences are meaningful.
 */
@FunctionalInterface
public interface Clock {
    /** Returns the current time in nanoseconds; never decreases between two calls. */
    long nowNs();
}
