package io.blockcache.loop;

import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;

/**
 * A loop that also waits for sockets: a channel registered here is served on the loop thread whenever it is ready,
 * so a request can be read, carried out and answered without leaving the loop (the NBD server's plain-TCP
 * connections). The handler is an ordinary loop task: it must not block, and a non-blocking channel never makes it.
 */
public interface ChannelLoop extends EventLoop {

    /** Told on the loop thread that a registered channel is ready for some of the operations it asked for. */
    @FunctionalInterface
    interface ReadyHandler {
        /** @param readyOps the {@link SelectionKey} operations ready now */
        void ready(int readyOps);
    }

    /**
     * Registers {@code channel}, which must be non-blocking, for {@code ops}. The returned key's interest set may
     * be changed and the key cancelled, both on the loop thread; closing the channel from any thread cancels it.
     * Thread rule: the loop thread.
     *
     * @throws ClosedChannelException if the channel is closed
     */
    SelectionKey register(SelectableChannel channel, int ops, ReadyHandler handler) throws ClosedChannelException;
}
