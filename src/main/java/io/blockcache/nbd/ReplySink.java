package io.blockcache.nbd;

/**
 * Where a connection's replies go: its {@link ReplyWriter} thread, or the loop itself ({@link LoopTransport}).
 * Either way every reply is written or dropped exactly once and then reported back, so that its request's permit,
 * budget and buffer return.
 */
interface ReplySink {
    /**
     * Queues the reply {@code request} holds ({@link InFlightRequest#replyPart}); never blocks. The sink reports the
     * request once its reply has been written or dropped; until then the request and its reply buffers are the
     * sink's.
     */
    void send(InFlightRequest request);

    /** Reply bytes written to the socket so far; any thread. */
    long bytesWritten();

    /** True while replies wait to be written (a client that does not read keeps this true); any thread. */
    boolean writing();
}
