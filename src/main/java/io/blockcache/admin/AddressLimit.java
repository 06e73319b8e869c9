package io.blockcache.admin;

import java.net.InetAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Requests in progress per client IP address, at most {@link AdminLimits#requestsPerAddressMax} each, so that one
 * client's slow or many requests cannot take every thread of {@link AdminWorkers}. A request is counted from the
 * moment its headers name the sender to the end of its answer.
 *
 * <p>Thread rule: any thread (the admin workers); a plain lock, since the admin API serves a few requests a second.
 */
final class AddressLimit {
    private final int perAddressMax;
    private final Map<InetAddress, Integer> inProgress = new HashMap<>();
    private final AtomicLong refusals = new AtomicLong();

    AddressLimit(int perAddressMax) {
        this.perAddressMax = perAddressMax;
    }

    /** Counts one more request from {@code address}, or refuses it (counted) when the address is at its limit. */
    synchronized boolean tryAcquire(InetAddress address) {
        int now = inProgress.getOrDefault(address, 0);
        if (now >= perAddressMax) {
            refusals.incrementAndGet();
            return false;
        }
        inProgress.put(address, now + 1);
        return true;
    }

    /** One request from {@code address} ended; it must have been acquired. */
    synchronized void release(InetAddress address) {
        Integer now = inProgress.get(address);
        if (now == null) {
            throw new IllegalStateException("admin request from " + address + " released but never counted");
        }
        if (now == 1) {
            inProgress.remove(address);
        } else {
            inProgress.put(address, now - 1);
        }
    }

    /** Requests from {@code address} in progress now. */
    synchronized int inProgress(InetAddress address) {
        return inProgress.getOrDefault(address, 0);
    }

    /** The limit per address. */
    int perAddressMax() {
        return perAddressMax;
    }

    /** Requests refused (429) since start because their address was at its limit. */
    long refusals() {
        return refusals.get();
    }
}
