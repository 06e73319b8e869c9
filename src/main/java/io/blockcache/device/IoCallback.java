package io.blockcache.device;

/**
 * Receives the outcome of one device request.
 *
 * <p>Thread rule: always invoked on the device's owning {@link io.blockcache.loop.EventLoop}, exactly once
 * per request, and never from inside the submitting call (so a caller may submit, then update its own
 * state, without being re-entered).
 */
@FunctionalInterface
public interface IoCallback {
    /** Called once when the request has completed, failed, or been cancelled by {@code close()}. */
    void complete(IoResult result);
}
