package io.blockcache.nbd;

import java.util.ArrayDeque;

/**
 * The reused {@link InFlightRequest} objects of one connection the loop serves (nothing allocated per
 * steady-state request on the loop thread). A connection has at most {@link Connection#REQUESTS_IN_FLIGHT_MAX}
 * requests at once (each holds a permit), so in steady state it makes that many objects at most and then only
 * reuses them.
 *
 * <p>Lifetime: {@link #giveBack} only once the request's reply has been written or dropped and reported, and its
 * buffer released; since a carried-out request is answered from its volume completion, the volume is done with it by
 * then. A request dropped on an error path (a truncated payload, a connection ending while a request waits for
 * budget) or taken and never answered (DISC, a header that ends the connection) is simply not given back: the
 * garbage collector takes it, and the pool makes a new one when needed.
 *
 * <p>Thread rule: the loop thread.
 */
final class RequestPool {
    /** Objects kept: one per request a connection may have in flight. */
    static final int FREE_MAX = Connection.REQUESTS_IN_FLIGHT_MAX;

    private final Session session;
    private final ReplySink replies;
    private final PayloadBuffers buffers;
    private final ArrayDeque<InFlightRequest> free = new ArrayDeque<>(FREE_MAX);
    private long createdCount;

    RequestPool(Session session, ReplySink replies, PayloadBuffers buffers) {
        this.session = session;
        this.replies = replies;
        this.buffers = buffers;
    }

    /** A request without header or buffer: a reused one if there is one. */
    InFlightRequest take() {
        InFlightRequest request = free.pollFirst();
        if (request == null) {
            request = new InFlightRequest(session, replies, buffers);
            createdCount++;
        }
        return request;
    }

    /**
     * Takes back a finished request (answered, reply written or dropped, buffer released).
     *
     * @throws IllegalStateException if it is not finished: reusing it would mix two requests
     */
    void giveBack(InFlightRequest request) {
        request.reset();
        if (free.size() < FREE_MAX) {
            free.addFirst(request); // the most recently used first: its memory is still in the CPU's caches
        }
    }

    /** Objects made so far (a pool that works makes at most {@link #FREE_MAX} per connection). */
    long createdCount() {
        return createdCount;
    }
}
