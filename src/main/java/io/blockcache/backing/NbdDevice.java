package io.blockcache.backing;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.CompletionBatcher;
import io.blockcache.device.DeviceCounters;
import io.blockcache.device.DeviceOp;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import io.blockcache.device.RemoteDevice;
import io.blockcache.device.RequestChecks;
import io.blockcache.loop.EventLoop;
import io.blockcache.nbd.NbdProtocol;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A remote NBD export as a {@link BlockDevice}: an asynchronous client over one or more TCP connections (doc/proto.md
 * of the reference NBD project: fixed newstyle, structured replies, many requests in flight, several connections
 * when the server offers NBD_FLAG_CAN_MULTI_CONN). Reads, writes, FUA, flushes and discards (NBD_CMD_TRIM) map to
 * their NBD commands; a FUA write to a server without NBD_FLAG_SEND_FUA is a write and a flush.
 *
 * <p><b>When the server goes away.</b> Requests in flight on a broken connection fail with {@link IoStatus#IO_ERROR},
 * as do reads, writes and discards submitted while it is away (the engine keeps dirty data dirty and retries;
 * the errors show in the device's counters), except flushes, which wait for the server. {@link NbdReconnector}
 * reconnects with backoff, writes again every write acknowledged since the last acknowledged flush
 * ({@link ReplayLog}) and only then sends the waiting flushes and takes new requests. So a flush acknowledged
 * after a reconnect still covers every write completed before it. A flush the <i>server</i> fails is sticky
 * here as in {@code StickyFlushDevice}: every later flush fails too.
 *
 * <p>Thread rule: submit and close on the owning loop's thread (checked); completions are delivered there.
 * Counters and {@link #state()}: any thread.
 */
public final class NbdDevice implements BlockDevice, RemoteDevice {
    /** Connections opened when the server offers multi-conn: more sockets, more parallel server threads. */
    public static final int CONNECTIONS_DEFAULT = 4;
    /** Connections at most (a bound on threads: two per connection). */
    public static final int CONNECTIONS_MAX = 16;
    /** Replay log bound: past it, writes wait while the client flushes (64 MiB: a second of a fast link). */
    static final long REPLAY_BYTES_MAX = 64L << 20;
    /**
     * How long a request may wait for its reply before the connection is given up and the reconnect path takes
     * over (60 s, the NBD server's own default for replies: {@code --nbd-reply-timeout}). A server that stops
     * answering without closing the socket would otherwise hold writeback, flushes and the shutdown forever.
     */
    public static final long REQUEST_TIMEOUT_NS_DEFAULT = 60_000_000_000L;
    /** The shortest request timeout: below 10 ms an ordinary round trip on a busy host would break connections. */
    public static final long REQUEST_TIMEOUT_NS_MIN = 10_000_000L;
    /** Checks per request timeout: a timed-out request is noticed within a quarter of the timeout. */
    static final int TIMEOUT_CHECKS_PER_TIMEOUT = 4;

    private final EventLoop loop;
    private final NbdUri uri;
    private final NbdExportInfo info;
    private final int logicalBlockBytes;
    private final int connectionsWanted;
    private final DeviceCounters counters = new DeviceCounters();
    private final CompletionBatcher completions;
    private final ReplayLog log = new ReplayLog();
    private final NbdReconnector reconnector;
    private final AtomicLong breaks = new AtomicLong();
    private final AtomicLong reconnects = new AtomicLong();
    private final AtomicLong replayedWrites = new AtomicLong();
    private final AtomicLong requestTimeouts = new AtomicLong();
    private final long requestTimeoutNs;

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
    private String serverFlushFailure;

    private NbdDevice(EventLoop loop, NbdUri uri, NbdExportInfo info, int logicalBlockBytes, int connectionsWanted,
                      long requestTimeoutNs) {
        this.loop = loop;
        this.requestTimeoutNs = requestTimeoutNs;
        this.uri = uri;
        this.info = info;
        this.logicalBlockBytes = logicalBlockBytes;
        this.connectionsWanted = connectionsWanted;
        this.completions = new CompletionBatcher(loop);
        this.reconnector = new NbdReconnector(this);
    }

    /**
     * Connects to {@code uri} and returns the device; blocking (start-up only).
     *
     * @param connections connections to open if the server offers multi-conn (else one), 1..{@link #CONNECTIONS_MAX}
     * @throws IOException with a one-line message naming the URI: unreachable, not NBD, no such export, read-only,
     *     or a size or block size this cache cannot use
     */
    public static NbdDevice open(EventLoop loop, NbdUri uri, int connections) throws IOException {
        return open(loop, uri, connections, REQUEST_TIMEOUT_NS_DEFAULT);
    }

    /**
     * As {@link #open(EventLoop, NbdUri, int)}, with a request timeout of {@code requestTimeoutNs} (at least 10 ms):
     * a request unanswered that long breaks its connection, and the reconnect path takes over.
     */
    public static NbdDevice open(EventLoop loop, NbdUri uri, int connections, long requestTimeoutNs)
            throws IOException {
        Objects.requireNonNull(loop, "loop");
        if (requestTimeoutNs < REQUEST_TIMEOUT_NS_MIN) {
            throw new IllegalArgumentException("the request timeout must be at least 10 ms: " + requestTimeoutNs
                    + " ns");
        }
        if (connections < 1 || connections > CONNECTIONS_MAX) {
            throw new IllegalArgumentException("connections must be 1.." + CONNECTIONS_MAX + ": " + connections);
        }
        NbdDevice[] device = new NbdDevice[1];
        NbdConnection first = NbdConnection.open(uri, 0, (c, why) -> device[0].broken(c, why));
        NbdExportInfo info = first.info();
        try {
            int blockBytes = checkExport(uri, info);
            device[0] = new NbdDevice(loop, uri, info, blockBytes, info.multiConn() ? connections : 1,
                    requestTimeoutNs);
            List<NbdConnection> all = new ArrayList<>(List.of(first));
            all.addAll(device[0].openMore(1));
            if (!device[0].install(all)) {
                throw new IOException(uri + ": the connection broke during start-up");
            }
            device[0].reconnector.start();
            return device[0];
        } catch (IOException | RuntimeException e) {
            first.abort();
            throw e;
        }
    }

    /** Checks what the server offers and returns the logical block size to use. */
    private static int checkExport(NbdUri uri, NbdExportInfo info) throws IOException {
        if (info.has(NbdProtocol.FLAG_READ_ONLY)) {
            throw new IOException(uri + ": the export is read-only; a backing store must be writable");
        }
        if (info.blockBytesMin() > 4096) {
            throw new IOException(uri + ": the export's minimum block size " + info.blockBytesMin()
                    + " is larger than 4096 bytes");
        }
        int blockBytes = info.blockBytesMin() > SECTOR_BYTES ? 4096 : SECTOR_BYTES;
        if (info.sizeBytes() <= 0 || info.sizeBytes() % blockBytes != 0) {
            throw new IOException(uri + ": the export's size " + info.sizeBytes() + " bytes is not a positive multiple "
                    + "of " + blockBytes);
        }
        return blockBytes;
    }

    /** Opens connections {@code from}..wanted-1 (blocking); closes what it opened if one fails. */
    List<NbdConnection> openMore(int from) throws IOException {
        List<NbdConnection> opened = new ArrayList<>();
        try {
            for (int i = from; i < connectionsWanted; i++) {
                NbdConnection connection = NbdConnection.open(uri, i, this::broken);
                if (connection.info().sizeBytes() != info.sizeBytes()) {
                    opened.add(connection);
                    throw new IOException(uri + ": the export's size changed from " + info.sizeBytes() + " to "
                            + connection.info().sizeBytes() + " bytes; refusing it");
                }
                opened.add(connection);
            }
            return opened;
        } catch (IOException e) {
            opened.forEach(NbdConnection::abort);
            throw e;
        }
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

    @Override
    public long sizeBytes() {
        return info.sizeBytes();
    }

    @Override
    public int logicalBlockBytes() {
        return logicalBlockBytes;
    }

    @Override
    public DeviceCounters counters() {
        return counters;
    }

    /** The URI this device talks to. */
    public NbdUri uri() {
        return uri;
    }

    /** What the server said about the export when the device opened. */
    public NbdExportInfo info() {
        return info;
    }

    /** Connections in use now (0 while the server is away). */
    public int connections() {
        synchronized (lock) {
            return connections.size();
        }
    }

    /** "connected (4 connections)" or "away: WHY (reconnecting)"; any thread. */
    @Override
    public String state() {
        synchronized (lock) {
            return closed ? "closed" : awayReason == null ? "connected (" + connections.size() + " connections)"
                    : "away: " + awayReason + " (reconnecting)";
        }
    }

    @Override
    public boolean connected() {
        synchronized (lock) {
            return !closed && awayReason == null;
        }
    }

    /** Times a connection broke and every connection was dropped. */
    @Override
    public long breaks() {
        return breaks.get();
    }

    /** Times the client reconnected after a break. */
    @Override
    public long reconnects() {
        return reconnects.get();
    }

    /** Writes sent again after a reconnect because no flush had covered them. */
    public long replayedWrites() {
        return replayedWrites.get();
    }

    /** Bytes of acknowledged writes no acknowledged flush covers yet (what a reconnect would write again). */
    public long unflushedBytes() {
        return log.bytes();
    }

    @Override
    public long replayLogBytes() {
        return log.bytes();
    }

    @Override
    public void read(long offsetBytes, ByteBuffer dst, IoCallback callback) {
        submit(DeviceOp.READ, NbdProtocol.CMD_READ, 0, offsetBytes, dst.remaining(), dst, callback);
    }

    @Override
    public void write(long offsetBytes, ByteBuffer src, boolean fua, IoCallback callback) {
        if (fua && !info.has(NbdProtocol.FLAG_SEND_FUA)) {
            // No FUA on this server: a write and then a flush (which covers it, and more than asked).
            write(offsetBytes, src, false, thenFlush(callback));
            return;
        }
        submit(DeviceOp.WRITE, NbdProtocol.CMD_WRITE, fua ? NbdProtocol.CMD_FLAG_FUA : 0, offsetBytes,
                src.remaining(), src, callback);
    }

    /** A callback that flushes after a successful write and then answers {@code callback} (FUA emulated). */
    private IoCallback thenFlush(IoCallback callback) {
        Objects.requireNonNull(callback, "callback");
        return result -> {
            if (result.ok()) {
                flush(callback);
            } else {
                callback.complete(result);
            }
        };
    }

    /** True if the server offers WRITE_ZEROES: zeroing then sends no payload. */
    @Override
    public boolean writesZeroes() {
        return info.has(NbdProtocol.FLAG_SEND_WRITE_ZEROES);
    }

    /**
     * NBD_CMD_WRITE_ZEROES (doc/proto.md): the range reads as zeroes, nothing is sent but the header; counted and
     * logged for replay as a write (a zeroed range is written again after a reconnect, without bytes held). Only
     * when the server offers it ({@link #writesZeroes()}).
     */
    @Override
    public void writeZeroes(long offsetBytes, long lengthBytes, boolean fua, IoCallback callback) {
        if (!writesZeroes()) {
            throw new UnsupportedOperationException(uri + ": the server does not offer WRITE_ZEROES");
        }
        if (fua && !info.has(NbdProtocol.FLAG_SEND_FUA)) {
            writeZeroes(offsetBytes, lengthBytes, false, thenFlush(callback)); // as write without FUA on the server
            return;
        }
        submit(DeviceOp.WRITE, NbdProtocol.CMD_WRITE_ZEROES, fua ? NbdProtocol.CMD_FLAG_FUA : 0, offsetBytes,
                lengthBytes, null, callback);
    }

    @Override
    public void flush(IoCallback callback) {
        submit(DeviceOp.FLUSH, NbdProtocol.CMD_FLUSH, 0, 0, 0, null, callback);
    }

    @Override
    public void discard(long offsetBytes, long lengthBytes, IoCallback callback) {
        submit(DeviceOp.DISCARD, NbdProtocol.CMD_TRIM, 0, offsetBytes, lengthBytes, null, callback);
    }

    private void submit(DeviceOp op, int type, int flags, long offsetBytes, long lengthBytes, ByteBuffer buffer,
            IoCallback callback) {
        Objects.requireNonNull(callback, "callback");
        checkThread();
        IoResult rejected = RequestChecks.check(op, offsetBytes, lengthBytes, info.sizeBytes(), logicalBlockBytes,
                uri.toString());
        boolean payloadFree = op == DeviceOp.DISCARD || type == NbdProtocol.CMD_WRITE_ZEROES;
        if (rejected == null && !payloadFree && lengthBytes > info.payloadBytesMax()) {
            rejected = IoResult.error(IoStatus.IO_ERROR, RequestChecks.describe(op, offsetBytes, lengthBytes,
                    uri.toString()) + ": larger than the server's largest request, " + info.payloadBytesMax());
        }
        long nowNs = loop.nowNs();
        counters.onSubmit(op, rejected == null ? lengthBytes : 0, nowNs);
        // A discard longer than one request's length field is allowed to do nothing (the contract allows it).
        boolean noOp = op == DeviceOp.FLUSH && !info.has(NbdProtocol.FLAG_SEND_FLUSH)
                || op == DeviceOp.DISCARD && (!info.has(NbdProtocol.FLAG_SEND_TRIM) || lengthBytes == 0
                        || lengthBytes > 0xFFFF_FFFFL - logicalBlockBytes)
                || type == NbdProtocol.CMD_WRITE_ZEROES && lengthBytes == 0;
        NbdCommand command = new NbdCommand(op, type, flags, offsetBytes, (int) Math.min(lengthBytes, 0xFFFF_FFFFL),
                buffer, this::commandDone, callback, nowNs);
        if (rejected != null || noOp) {
            finish(command, rejected == null ? IoResult.OK : rejected);
            return;
        }
        dispatch(command);
    }

    /** Sends {@code command} on the next connection, or holds, parks or fails it; any thread. */
    private void dispatch(NbdCommand command) {
        IoResult failure = null;
        boolean sent = false;
        synchronized (lock) {
            if (closed) {
                failure = closedResult(command);
            } else if (command.op == DeviceOp.FLUSH && serverFlushFailure != null) {
                failure = IoResult.error(IoStatus.IO_ERROR, uri + ": an earlier flush failed (" + serverFlushFailure
                        + "); writes before it may be lost, so no flush can succeed until the cache is restarted");
            } else if (connections.isEmpty()) {
                if (command.op == DeviceOp.FLUSH) {
                    heldFlushes.addLast(command);
                    return;
                }
                failure = IoResult.error(IoStatus.IO_ERROR, uri + ": " + command.describe()
                        + ": the server is away (" + awayReason + "); reconnecting");
            } else if (logged(command)
                    && log.bytes() + writeBytesInFlight + command.payloadBytes() > REPLAY_BYTES_MAX
                    && log.bytes() + writeBytesInFlight > 0) {
                parkedWrites.addLast(command); // sent once a flush (ours, if need be) or a reply makes room
                startInternalFlush();
                return;
            } else {
                if (command.op == DeviceOp.FLUSH) {
                    command.flushCoversSeq = log.lastSeq();
                }
                if (logged(command)) {
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

    /** True for the writes the replay log keeps once acknowledged: the engine's writes without FUA. */
    private static boolean logged(NbdCommand command) {
        return command.op == DeviceOp.WRITE && command.callback != null
                && (command.flags & NbdProtocol.CMD_FLAG_FUA) == 0;
    }

    /** The end of every engine command; the connection's reader or the thread that aborted it. */
    private void commandDone(NbdCommand command, IoResult result, boolean brokenConnection) {
        if (logged(command)) {
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

    /** Bookkeeping of a reply: log acknowledged writes, release what an acknowledged flush covers. */
    private void afterReply(NbdCommand command, IoResult result) {
        if (command.op == DeviceOp.WRITE && result.ok() && (command.flags & NbdProtocol.CMD_FLAG_FUA) == 0) {
            if (command.type == NbdProtocol.CMD_WRITE_ZEROES) {
                log.addZeroes(command.offsetBytes, command.lengthBytes);
            } else {
                log.add(command.offsetBytes, command.buffer);
            }
        } else if (command.op == DeviceOp.FLUSH && result.ok()) {
            log.releaseUpTo(command.flushCoversSeq);
            unpark();
        } else if (command.op == DeviceOp.FLUSH) {
            synchronized (lock) {
                if (serverFlushFailure == null) {
                    serverFlushFailure = result.message();
                }
            }
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
            long roomBytes = REPLAY_BYTES_MAX - log.bytes() - writeBytesInFlight;
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
    private void broken(NbdConnection connection, String why) {
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
        reconnector.wake();
    }

    /** Requests that waited longer than the request timeout (each broke its connection). */
    @Override
    public long requestTimeouts() {
        return requestTimeouts.get();
    }

    /** How often the reconnect thread looks for timed-out requests, in ms. */
    long timeoutCheckMs() {
        return Math.max(1, requestTimeoutNs / TIMEOUT_CHECKS_PER_TIMEOUT / 1_000_000L);
    }

    /**
     * Gives up every connection whose oldest request has waited longer than the request timeout: it breaks, what
     * was in flight fails (flushes wait), and the reconnector reconnects and replays, as when the server goes away.
     * The reconnect thread's; any thread.
     */
    void checkTimeouts() {
        List<NbdConnection> now;
        synchronized (lock) {
            now = connections;
        }
        long nowNs = loop.nowNs();
        for (NbdConnection connection : now) {
            NbdCommand oldest = connection.oldest();
            if (oldest != null && nowNs - oldest.sentNs > requestTimeoutNs) {
                requestTimeouts.incrementAndGet();
                connection.expire(oldest.describe() + " unanswered for " + (nowNs - oldest.sentNs) / 1_000_000L
                        + " ms (request timeout " + requestTimeoutNs / 1_000_000L + " ms)");
                return; // one break drops every connection
            }
        }
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

    /** Writes every logged write again on a started, not yet installed {@code connection} (blocking). */
    void replay(NbdConnection connection) throws IOException {
        List<ReplayLog.Entry> entries = log.snapshot();
        NbdReplay.run(uri, connection, entries);
        replayedWrites.addAndGet(entries.size());
        reconnects.incrementAndGet();
    }

    /** The number of connections to open on a reconnect. */
    int connectionsWanted() {
        return connectionsWanted;
    }

    /** Counts the completion and delivers it on the loop. */
    private void finish(NbdCommand command, IoResult result) {
        if (command.callback == null) {
            return; // the client's own request
        }
        long nowNs = loop.nowNs();
        long countedBytes = result.ok() || command.op == DeviceOp.FLUSH ? command.lengthBytes : 0;
        counters.onComplete(command.op, countedBytes, nowNs - command.submittedNs, result, nowNs);
        completions.deliver(command.callback, result);
    }

    private IoResult closedOr(NbdCommand command, IoResult result) {
        synchronized (lock) {
            return closed ? closedResult(command) : result;
        }
    }

    private IoResult closedResult(NbdCommand command) {
        return IoResult.error(IoStatus.CLOSED, uri + ": " + command.describe() + ": device is closed");
    }

    /**
     * Stops the device: disconnects, fails what is in flight or waiting with {@link IoStatus#CLOSED}, and stops
     * the reconnector. Idempotent.
     */
    @Override
    public void close() {
        checkThread();
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
        reconnector.stop();
        for (NbdConnection connection : open) {
            // Closed without NBD_CMD_DISC (a SHOULD in doc/proto.md): sending it could block the loop on a full
            // socket; the server sees the connection end, which every server handles.
            for (NbdCommand command : connection.abort()) {
                command.done.done(command, closedResult(command), true);
            }
        }
        waiting.forEach(command -> finish(command, closedResult(command)));
    }

    private void checkThread() {
        if (!loop.inLoop()) {
            throw new IllegalStateException("NbdDevice " + uri + " used from thread "
                    + Thread.currentThread().getName() + ", not its owning loop's thread");
        }
    }
}
