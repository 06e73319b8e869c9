package io.blockcache.backing;

import io.blockcache.device.DeviceOp;
import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import io.blockcache.loop.EventLoop;
import io.blockcache.nbd.NbdProtocol;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;

/**
 * Where the commands of an {@link NbdDevice} go: the connections in use and the next one to send on; while the
 * server is away, the flushes held for it (reads, writes and discards fail at once); the replay log's bound (a write
 * that would take the log past {@link NbdDevice#REPLAY_BYTES_MAX} is parked, and the client sends a flush of its
 * own to make room); the bookkeeping of every reply ({@link NbdReplyBook}); and a break, which drops every
 * connection and wakes the {@link NbdReconnector}, whose fresh connections {@link #install} puts to work.
 *
 * <p>Threads: any (the loop submits, connection readers complete, the reconnector installs); the state is guarded by
 * one lock, never held while a completion is delivered.
 */
final class NbdRouter {
    private final EventLoop loop;
    private final NbdUri uri;
    private final ReplayLog log;
    /** Counts an engine command's completion and delivers it on the loop. */
    private final BiConsumer<NbdCommand, IoResult> finish;
    private final Runnable wakeReconnector;
    private final AtomicLong breaks = new AtomicLong();
    private final NbdReplyBook book;

    private final Object lock = new Object();
    // Guarded by lock.
    private List<NbdConnection> connections = List.of();
    private int nextConnection;
    private boolean closed;
    /** Flushes waiting for the server to come back; bounded by the engine's flushes in flight. */
    private final ArrayDeque<NbdCommand> heldFlushes = new ArrayDeque<>();
    /** Writes waiting for the replay log to shrink; bounded by the engine's writes in flight. */
    private final ArrayDeque<NbdCommand> parkedWrites = new ArrayDeque<>();
    private boolean internalFlushInFlight;
    /**
     * Payload bytes of non-FUA engine writes sent and not yet answered: they join the replay log when acknowledged
     * (a WRITE_ZEROES has none).
     */
    private long writeBytesInFlight;
    private String awayReason;

    NbdRouter(EventLoop loop, NbdUri uri, ReplayLog log, BiConsumer<NbdCommand, IoResult> finish,
              Runnable wakeReconnector) {
        this.loop = loop;
        this.uri = uri;
        this.log = log;
        this.finish = finish;
        this.wakeReconnector = wakeReconnector;
        this.book = new NbdReplyBook(uri, log);
    }

    /**
     * Puts freshly negotiated (and, after a break, replayed) connections to work and sends what waited.
     *
     * @return false (and aborts them) if the device was closed or one of them broke already
     */
    boolean install(List<NbdConnection> fresh) {
        List<NbdCommand> waiting = new ArrayList<>();
        synchronized (lock) {
            // A connection that broke before this point told a listener that ignored it (it was not ours yet).
            if (closed || fresh.stream().anyMatch(NbdConnection::isBroken)) {
                fresh.forEach(NbdConnection::abort);
                return false;
            }
            fresh.forEach(NbdConnection::start);
            connections = List.copyOf(fresh);
            awayReason = null;
            waiting.addAll(heldFlushes);
            heldFlushes.clear();
            waiting.addAll(parkedWrites);
            parkedWrites.clear();
        }
        waiting.forEach(this::dispatch);
        return true;
    }

    /** Connections in use now (0 while the server is away). */
    int connectionCount() {
        synchronized (lock) {
            return connections.size();
        }
    }

    /** The connections in use now (empty while the server is away). */
    List<NbdConnection> connections() {
        synchronized (lock) {
            return connections;
        }
    }

    /** "connected (4 connections)", "away: WHY (reconnecting)" or "closed". */
    String state() {
        synchronized (lock) {
            return closed ? "closed" : awayReason == null ? "connected (" + connections.size() + " connections)"
                    : "away: " + awayReason + " (reconnecting)";
        }
    }

    /** True while connected and open. */
    boolean connected() {
        synchronized (lock) {
            return !closed && awayReason == null;
        }
    }

    /** Times a connection broke and every connection was dropped. */
    long breaks() {
        return breaks.get();
    }

    /** Sends {@code command} on the next connection, or holds, parks or fails it; any thread. */
    void dispatch(NbdCommand command) {
        IoResult failure = null;
        boolean sent = false;
        synchronized (lock) {
            if (closed) {
                failure = closedResult(command);
            } else if (command.op == DeviceOp.FLUSH && book.flushRefusal() != null) {
                failure = book.flushRefusal();
            } else if (connections.isEmpty()) {
                if (command.op == DeviceOp.FLUSH) {
                    heldFlushes.addLast(command);
                    return;
                }
                failure = IoResult.error(IoStatus.IO_ERROR, uri + ": " + command.describe()
                        + ": the server is away (" + awayReason + "); reconnecting");
            } else if (NbdReplyBook.logged(command)
                    && log.bytes() + writeBytesInFlight + command.payloadBytes() > NbdDevice.REPLAY_BYTES_MAX
                    && log.bytes() + writeBytesInFlight > 0) {
                parkedWrites.addLast(command); // sent once a flush (ours, if need be) or a reply makes room
                startInternalFlush();
                return;
            } else {
                if (command.op == DeviceOp.FLUSH) {
                    command.flushCoversSeq = log.lastSeq();
                }
                if (NbdReplyBook.logged(command)) {
                    writeBytesInFlight += command.payloadBytes();
                }
                NbdConnection connection = connections.get(Math.floorMod(nextConnection++, connections.size()));
                command.sentNs = loop.nowNs();
                sent = connection.send(command);
            }
        }
        if (failure != null) {
            finish(command, failure);
        } else if (!sent) {
            // The connection broke between our look and the send; its listener is dropping it.
            commandDone(command, IoResult.error(IoStatus.IO_ERROR, uri + ": connection lost"), true);
        }
    }

    /** The end of every engine command; the connection's reader or the thread that aborted it. */
    void commandDone(NbdCommand command, IoResult result, boolean brokenConnection) {
        if (NbdReplyBook.logged(command)) {
            if (!brokenConnection) {
                afterReply(command, result); // into the log before it stops counting as in flight
            }
            synchronized (lock) {
                writeBytesInFlight -= command.payloadBytes();
            }
            unpark();
            finish(command, brokenConnection ? closedOr(command, result) : result);
            return;
        }
        if (brokenConnection) {
            synchronized (lock) {
                if (command.op == DeviceOp.FLUSH && !closed) {
                    heldFlushes.addLast(command); // sent again once the unflushed writes are replayed
                    return;
                }
            }
            finish(command, closedOr(command, result));
            return;
        }
        afterReply(command, result);
        finish(command, result);
    }

    /** Bookkeeping of a reply ({@link NbdReplyBook}); parked writes go on if a flush made room. */
    private void afterReply(NbdCommand command, IoResult result) {
        if (book.record(command, result)) {
            unpark();
        }
    }

    /** Sends the client's own flush to shrink the replay log; with the lock held. */
    private void startInternalFlush() {
        if (internalFlushInFlight || connections.isEmpty() || log.bytes() == 0) {
            return; // with nothing logged yet, the replies of the writes in flight make room (unpark)
        }
        internalFlushInFlight = true;
        NbdCommand flush = new NbdCommand(DeviceOp.FLUSH, NbdProtocol.CMD_FLUSH, 0, 0, 0, null,
                this::internalFlushDone, null, loop.nowNs());
        flush.flushCoversSeq = log.lastSeq();
        flush.sentNs = loop.nowNs();
        NbdConnection connection = connections.get(Math.floorMod(nextConnection++, connections.size()));
        if (!connection.send(flush)) {
            internalFlushInFlight = false;
        }
    }

    private void internalFlushDone(NbdCommand command, IoResult result, boolean brokenConnection) {
        synchronized (lock) {
            internalFlushInFlight = false;
        }
        if (!brokenConnection) {
            afterReply(command, result);
        }
        unpark();
    }

    /** Sends parked writes while the log has room; any thread. */
    private void unpark() {
        List<NbdCommand> ready = new ArrayList<>();
        synchronized (lock) {
            long roomBytes = NbdDevice.REPLAY_BYTES_MAX - log.bytes() - writeBytesInFlight;
            while (!parkedWrites.isEmpty() && !connections.isEmpty()
                    && (parkedWrites.peekFirst().payloadBytes() <= roomBytes
                            || log.bytes() + writeBytesInFlight == 0)) {
                roomBytes -= parkedWrites.peekFirst().payloadBytes();
                ready.add(parkedWrites.removeFirst());
            }
            if (!parkedWrites.isEmpty()) {
                startInternalFlush();
            }
        }
        ready.forEach(this::dispatch);
    }

    /** A connection broke: drop every connection, cut off what was in flight, let the reconnector work. */
    void broken(NbdConnection connection, String why) {
        List<NbdConnection> dead;
        synchronized (lock) {
            if (!connections.contains(connection)) {
                return; // a connection we already dropped, or one still being set up by the reconnector
            }
            dead = connections;
            connections = List.of();
            awayReason = why;
            breaks.incrementAndGet();
        }
        IoResult cut = IoResult.error(IoStatus.IO_ERROR, why);
        for (NbdConnection each : dead) {
            for (NbdCommand command : each.abort()) {
                command.done.done(command, cut, true);
            }
        }
        wakeReconnector.run();
    }

    /** True while the server is away and nobody closed the device; the reconnector's question. */
    boolean away() {
        synchronized (lock) {
            return !closed && connections.isEmpty();
        }
    }

    /** Called by the reconnector on a failed attempt, for {@link #state()}. */
    void attemptFailed(String why) {
        synchronized (lock) {
            if (awayReason != null) {
                awayReason = why;
            }
        }
    }

    /**
     * Closes: nothing is sent from now on; disconnects and fails what was in flight or waiting with
     * {@link IoStatus#CLOSED}. Idempotent.
     */
    void close() {
        List<NbdConnection> open;
        List<NbdCommand> waiting = new ArrayList<>();
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            open = connections;
            connections = List.of();
            waiting.addAll(heldFlushes);
            waiting.addAll(parkedWrites);
            heldFlushes.clear();
            parkedWrites.clear();
        }
        for (NbdConnection connection : open) {
            // Closed without NBD_CMD_DISC (a SHOULD in doc/proto.md): sending it could block the loop on a full
            // socket; the server sees the connection end, which every server handles.
            for (NbdCommand command : connection.abort()) {
                command.done.done(command, closedResult(command), true);
            }
        }
        waiting.forEach(command -> finish(command, closedResult(command)));
    }

    /** True once closed. */
    boolean closed() {
        synchronized (lock) {
            return closed;
        }
    }

    private void finish(NbdCommand command, IoResult result) {
        finish.accept(command, result);
    }

    private IoResult closedOr(NbdCommand command, IoResult result) {
        synchronized (lock) {
            return closed ? closedResult(command) : result;
        }
    }

    private IoResult closedResult(NbdCommand command) {
        return IoResult.error(IoStatus.CLOSED, uri + ": " + command.describe() + ": device is closed");
    }

}
