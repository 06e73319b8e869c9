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
 * <p>Roles: this class keeps the {@link BlockDevice} contract (checks, the NBD command for each request, counters,
 * completions on the loop); {@link NbdRouter} sends commands over the connections and keeps the break, hold and
 * replay-log state; {@link NbdConnector} opens connections; {@link NbdTimeouts} gives up a request the server sits
 * on; {@link NbdReconnector} and {@link NbdReplay} bring the server back.
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

    private final EventLoop loop;
    private final NbdUri uri;
    private final NbdExportInfo info;
    private final int logicalBlockBytes;
    private final int connectionsWanted;
    private final DeviceCounters counters = new DeviceCounters();
    private final CompletionBatcher completions;
    private final ReplayLog log = new ReplayLog();
    private final NbdReconnector reconnector;
    private final AtomicLong reconnects = new AtomicLong();
    private final AtomicLong replayedWrites = new AtomicLong();
    private final NbdTimeouts timeouts;

    private final NbdRouter router;

    private NbdDevice(EventLoop loop, NbdUri uri, NbdExportInfo info, int logicalBlockBytes, int connectionsWanted,
                      long requestTimeoutNs) {
        this.loop = loop;
        this.timeouts = new NbdTimeouts(requestTimeoutNs);
        this.uri = uri;
        this.info = info;
        this.logicalBlockBytes = logicalBlockBytes;
        this.connectionsWanted = connectionsWanted;
        this.completions = new CompletionBatcher(loop);
        this.reconnector = new NbdReconnector(this);
        this.router = new NbdRouter(loop, uri, log, this::finish, reconnector::wake);
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
        NbdConnection first = NbdConnection.open(uri, 0, (c, why) -> device[0].router.broken(c, why));
        NbdExportInfo info = first.info();
        try {
            int blockBytes = NbdConnector.checkExport(uri, info);
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

    /** Opens connections {@code from}..wanted-1 (blocking); closes what it opened if one fails. */
    List<NbdConnection> openMore(int from) throws IOException {
        return NbdConnector.openMore(uri, info.sizeBytes(), from, connectionsWanted, router::broken);
    }

    /**
     * Puts freshly negotiated (and, after a break, replayed) connections to work and sends what waited.
     *
     * @return false (and aborts them) if the device was closed or one of them broke already
     */
    boolean install(List<NbdConnection> fresh) {
        return router.install(fresh);
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
        return router.connectionCount();
    }

    /** "connected (4 connections)" or "away: WHY (reconnecting)"; any thread. */
    @Override
    public String state() {
        return router.state();
    }

    @Override
    public boolean connected() {
        return router.connected();
    }

    /** Times a connection broke and every connection was dropped. */
    @Override
    public long breaks() {
        return router.breaks();
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
                buffer, router::commandDone, callback, nowNs);
        if (rejected != null || noOp) {
            finish(command, rejected == null ? IoResult.OK : rejected);
            return;
        }
        router.dispatch(command);
    }

    /** Requests that waited longer than the request timeout (each broke its connection). */
    @Override
    public long requestTimeouts() {
        return timeouts.count();
    }

    /** How often the reconnect thread looks for timed-out requests, in ms. */
    long timeoutCheckMs() {
        return timeouts.checkPeriodMs();
    }

    /** Gives up a connection whose oldest request waited too long ({@link NbdTimeouts}); the reconnect thread's. */
    void checkTimeouts() {
        timeouts.check(router.connections(), loop.nowNs());
    }

    /** True while the server is away and nobody closed the device; the reconnector's question. */
    boolean away() {
        return router.away();
    }

    /** Called by the reconnector on a failed attempt, for {@link #state()}. */
    void attemptFailed(String why) {
        router.attemptFailed(why);
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

    /**
     * Stops the device: disconnects, fails what is in flight or waiting with {@link IoStatus#CLOSED}, and stops
     * the reconnector. Idempotent.
     */
    @Override
    public void close() {
        checkThread();
        if (router.closed()) {
            return;
        }
        router.close();
        reconnector.stop();
    }

    private void checkThread() {
        if (!loop.inLoop()) {
            throw new IllegalStateException("NbdDevice " + uri + " used from thread "
                    + Thread.currentThread().getName() + ", not its owning loop's thread");
        }
    }
}
