package io.blockcache.backing;

import io.blockcache.device.DeviceOp;
import io.blockcache.device.IoResult;
import io.blockcache.nbd.NbdProtocol;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes the {@link ReplayLog} again on a new connection, oldest first, several at a time, but never two
 * overlapping writes at once (a server may run requests in flight in any order, so the newer one waits for the
 * older one's reply). Blocking: runs on the reconnect thread only.
 */
final class NbdReplay {
    /** Replay writes in flight at most. */
    static final int IN_FLIGHT_MAX = 64;
    /** How often a wait looks whether the connection broke meanwhile (its replies would never come). */
    private static final long BROKEN_CHECK_PERIOD_MS = 100;

    private final NbdUri uri;
    private final NbdConnection connection;
    private final List<ReplayLog.Entry> inFlight = new ArrayList<>(); // guarded by this
    private String failure; // guarded by this

    private NbdReplay(NbdUri uri, NbdConnection connection) {
        this.uri = uri;
        this.connection = connection;
    }

    /**
     * Writes {@code entries} on {@code connection} and waits for every reply.
     *
     * @throws IOException if a write fails or the connection breaks
     */
    static void run(NbdUri uri, NbdConnection connection, List<ReplayLog.Entry> entries) throws IOException {
        new NbdReplay(uri, connection).replay(entries);
    }

    private void replay(List<ReplayLog.Entry> entries) throws IOException {
        for (ReplayLog.Entry entry : entries) {
            synchronized (this) {
                awaitUntil(() -> inFlight.size() < IN_FLIGHT_MAX
                        && inFlight.stream().noneMatch(e -> overlap(e, entry)));
                inFlight.add(entry);
            }
            boolean zeroes = entry.data() == null;
            NbdCommand write = new NbdCommand(DeviceOp.WRITE, zeroes ? NbdProtocol.CMD_WRITE_ZEROES
                    : NbdProtocol.CMD_WRITE, 0, entry.offsetBytes(), (int) entry.lengthBytes(),
                    zeroes ? null : ByteBuffer.wrap(entry.data()), (command, result, broken) -> done(entry, result),
                    null, 0);
            if (!connection.send(write)) {
                throw new IOException(uri + ": the connection broke while replaying unflushed writes");
            }
        }
        synchronized (this) {
            awaitUntil(inFlight::isEmpty);
        }
    }

    private synchronized void done(ReplayLog.Entry entry, IoResult result) {
        inFlight.remove(entry);
        if (!result.ok() && failure == null) {
            failure = result.message();
        }
        notifyAll();
    }

    /** Waits, holding the monitor, until {@code condition}; throws on a failure or a broken connection. */
    private void awaitUntil(java.util.function.BooleanSupplier condition) throws IOException {
        while (true) {
            if (failure != null) {
                throw new IOException(uri + ": replaying unflushed writes failed: " + failure);
            }
            if (condition.getAsBoolean()) {
                return;
            }
            if (connection.isBroken()) {
                throw new IOException(uri + ": the connection broke while replaying unflushed writes");
            }
            try {
                wait(BROKEN_CHECK_PERIOD_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException(uri + ": interrupted while replaying unflushed writes");
            }
        }
    }

    private static boolean overlap(ReplayLog.Entry a, ReplayLog.Entry b) {
        return a.offsetBytes() < b.offsetBytes() + b.lengthBytes()
                && b.offsetBytes() < a.offsetBytes() + a.lengthBytes();
    }
}
