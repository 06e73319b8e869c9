package io.blockcache.nbd;

import io.blockcache.loop.EventLoop;

/**
 * What every connection of one server shares: the exports, the loop, the limits, the counters, the buffer pool
 * and budget, the operator log and the TLS settings. Immutable holder; the parts are thread-safe as each says.
 */
record ConnectionContext(Exports exports, EventLoop loop, NbdLimits limits, NbdCounters counters,
                         PayloadBuffers buffers, BufferBudget budget, OperatorLog log,
                         TlsSettings tls) {
}
