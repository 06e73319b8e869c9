package io.blockcache.nbd;

import static io.blockcache.nbd.NbdProtocol.*;

import io.blockcache.loop.Prng;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.util.HashMap;
import java.util.Map;

/**
 * One fuzz worker's client: opens connection after connection and sends malformed frames in both phases, checking
 * every answer the server owes ({@link WireFrames}): the right option reply or error value for each frame it must
 * survive, and a closed connection after each frame it must not. Many frames per connection, sent in batches
 * (at most {@link Connection#REQUESTS_IN_FLIGHT_MAX} requests, 64 options), so that a million frames take seconds.
 * Not thread-safe: one per worker thread.
 */
final class WireFuzzClient {
    /** A server that does not answer within this fails the fuzz as a hang. */
    static final int READ_TIMEOUT_MS = 20_000;
    private static final int OPTION_BATCH_MAX = 64;

    private final InetSocketAddress address;
    private final Prng prng;
    private final long volumeBytes;
    private long framesSent;
    private long connectionsOpened;
    private long connectionsKilled;

    WireFuzzClient(InetSocketAddress address, Prng prng, long volumeBytes) {
        this.address = address;
        this.prng = prng;
        this.volumeBytes = volumeBytes;
    }

    long framesSent() {
        return framesSent;
    }

    long connectionsOpened() {
        return connectionsOpened;
    }

    /** Connections that ended with a frame the server had to refuse by hanging up. */
    long connectionsKilled() {
        return connectionsKilled;
    }

    /** One connection from connect to close. */
    void connection() throws IOException {
        connectionsOpened++;
        WireFrames frames = new WireFrames(prng, volumeBytes);
        try (Socket socket = new Socket(address.getAddress(), address.getPort())) {
            socket.setSoTimeout(READ_TIMEOUT_MS);
            socket.setTcpNoDelay(true);
            DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream(), 64 << 10));
            OutputStream out = socket.getOutputStream();
            if (in.readLong() != INIT_MAGIC || in.readLong() != OPTION_MAGIC) {
                throw new IOException("bad greeting");
            }
            in.readUnsignedShort();
            if (prng.nextInt(50) == 0) {
                send(out, java.nio.ByteBuffer.allocate(4).putInt(frames.badClientFlags()).array());
                expectClosed(socket, in, "unknown client flags");
                return;
            }
            boolean noZeroes = prng.chance(0.5);
            send(out, java.nio.ByteBuffer.allocate(4).putInt(CLIENT_FLAG_FIXED_NEWSTYLE
                    | (noZeroes ? CLIENT_FLAG_NO_ZEROES : 0)).array());
            if (!optionFlood(socket, in, out, frames)) {
                return;
            }
            if (prng.chance(0.3)) {
                kill(socket, in, out, frames.handshakeKiller(), "a handshake frame the server must hang up on");
                return;
            }
            boolean structured = prng.chance(0.5);
            boolean contexts = structured && prng.chance(0.5);
            enter(in, out, structured, contexts, noZeroes);
            transmission(socket, in, out, frames, structured, contexts);
        }
    }

    /** Sends bad options in batches and checks each reply; false if the flood went past the server's limit. */
    private boolean optionFlood(Socket socket, DataInputStream in, OutputStream out, WireFrames frames)
            throws IOException {
        boolean flood = prng.nextInt(40) == 0;
        int count = flood ? Negotiation.OPTIONS_MAX : prng.nextInt(200);
        for (int sent = 0; sent < count; ) {
            int batch = Math.min(OPTION_BATCH_MAX, count - sent);
            WireFrames.Option[] options = new WireFrames.Option[batch];
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            for (int i = 0; i < batch; i++) {
                options[i] = frames.badOption();
                bytes.writeBytes(options[i].bytes());
            }
            send(out, bytes.toByteArray(), batch);
            for (WireFrames.Option option : options) {
                int last = finalReply(in, option.option());
                if (option.expectedFinal() != WireFrames.ANY_FINAL ? last != option.expectedFinal()
                        : last != REP_ACK && last >= 0) {
                    throw new IOException("option " + option.option() + " got reply type 0x" + Integer.toHexString(last)
                            + ", expected 0x" + Integer.toHexString(option.expectedFinal()));
                }
            }
            sent += batch;
        }
        if (flood) { // one option more than a handshake may have: the server has hung up, or does now
            try {
                send(out, frames.badOption().bytes());
            } catch (IOException alreadyClosed) {
                connectionsKilled++;
                return false;
            }
            expectClosed(socket, in, "option " + (Negotiation.OPTIONS_MAX + 1));
            return false;
        }
        return true;
    }

    /** Reads option replies up to the final one (ACK or an error) and returns its type. */
    private static int finalReply(DataInputStream in, int option) throws IOException {
        while (true) {
            if (in.readLong() != OPTION_REPLY_MAGIC) {
                throw new IOException("bad option reply magic");
            }
            int repliedOption = in.readInt();
            int type = in.readInt();
            in.skipNBytes(Integer.toUnsignedLong(in.readInt()));
            if (repliedOption != option) {
                throw new IOException("reply for option " + repliedOption + " while waiting for " + option);
            }
            if (type == REP_ACK || type < 0) {
                return type;
            }
        }
    }

    /** Ends negotiation for the export "default" the way the draw says. */
    private void enter(DataInputStream in, OutputStream out, boolean structured, boolean contexts,
                       boolean noZeroes) throws IOException {
        if (structured) {
            expectAck(in, out, WireFrames.option(OPT_STRUCTURED_REPLY, new byte[0], REP_ACK));
        }
        if (contexts) {
            expectAck(in, out, WireFrames.option(OPT_SET_META_CONTEXT,
                    NbdTestClient.metaData("default", "base:allocation"), REP_ACK));
        }
        if (!structured && prng.chance(0.3)) {
            send(out, WireFrames.option(OPT_EXPORT_NAME, "default".getBytes(), 0).bytes());
            in.skipNBytes(HandshakeCodec.EXPORT_NAME_REPLY_BYTES + (noZeroes ? 0 : 124));
        } else {
            expectAck(in, out, WireFrames.option(OPT_GO, WireFrames.info("default"), REP_ACK));
        }
    }

    private void expectAck(DataInputStream in, OutputStream out, WireFrames.Option option) throws IOException {
        send(out, option.bytes());
        int last = finalReply(in, option.option());
        if (last != REP_ACK) {
            throw new IOException("option " + option.option() + " failed with 0x" + Integer.toHexString(last));
        }
    }

    /** Batches of bad requests, each reply checked; then DISC, a killer frame or a hang-up. */
    private void transmission(Socket socket, DataInputStream in, OutputStream out, WireFrames frames,
                              boolean structured, boolean contexts) throws IOException {
        int batches = 1 + prng.nextInt(60);
        for (int b = 0; b < batches; b++) {
            int count = 1 + prng.nextInt(Connection.REQUESTS_IN_FLIGHT_MAX);
            Map<Long, Integer> expected = new HashMap<>();
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            for (int i = 0; i < count; i++) {
                WireFrames.Request request = frames.badRequest(structured, contexts);
                expected.put(request.handle(), request.expectedError());
                bytes.writeBytes(request.bytes());
            }
            send(out, bytes.toByteArray(), count);
            for (int i = 0; i < count; i++) {
                checkReply(in, structured, expected);
            }
        }
        if (prng.chance(0.1)) {
            return; // hang up without a word
        }
        byte[] killer = frames.transmissionKiller();
        kill(socket, in, out, killer == null ? WireFrames.disconnect() : killer,
                killer == null ? "DISC" : "a transmission frame the server must hang up on");
    }

    private static void checkReply(DataInputStream in, boolean structured, Map<Long, Integer> expected)
            throws IOException {
        int magic = in.readInt();
        int error;
        long handle;
        if (!structured && magic == SIMPLE_REPLY_MAGIC) {
            error = in.readInt();
            handle = in.readLong();
        } else if (structured && magic == STRUCTURED_REPLY_MAGIC) {
            int flags = in.readUnsignedShort();
            int type = in.readUnsignedShort();
            handle = in.readLong();
            int length = in.readInt();
            if (type != REPLY_TYPE_ERROR || (flags & REPLY_FLAG_DONE) == 0 || length < 6) {
                throw new IOException("handle " + handle + ": chunk type " + type + " flags " + flags
                        + " where a final error chunk was due");
            }
            error = in.readInt();
            int messageBytes = in.readUnsignedShort();
            if (messageBytes != length - 6) {
                throw new IOException("handle " + handle + ": error message length " + messageBytes + " in a chunk of "
                        + length);
            }
            in.skipNBytes(messageBytes);
        } else {
            throw new IOException("reply magic 0x" + Integer.toHexString(magic) + " in a "
                    + (structured ? "structured" : "simple") + " session");
        }
        Integer want = expected.remove(handle);
        if (want == null || want != error) {
            throw new IOException("handle " + handle + " answered " + error + ", expected "
                    + (want == null ? "no reply (unknown or repeated handle)" : want));
        }
    }

    /** Sends {@code frame} (or nothing), ends the stream and expects the server to close. */
    private void kill(Socket socket, DataInputStream in, OutputStream out, byte[] frame, String what)
            throws IOException {
        if (frame != null) {
            send(out, frame);
        }
        socket.shutdownOutput(); // a truncated frame is then truncated for good
        expectClosed(socket, in, what);
    }

    private void expectClosed(Socket socket, DataInputStream in, String after) throws IOException {
        try {
            byte[] rest = in.readAllBytes();
            if (rest.length > 0 && !after.startsWith("option") && !after.equals("DISC")) {
                // ABORT-like answers may come before the close; a request frame earns no reply at all.
                throw new IOException(rest.length + " unexpected bytes after " + after);
            }
        } catch (SocketTimeoutException e) {
            throw new IOException("the server neither answered nor closed within " + READ_TIMEOUT_MS + " ms after "
                    + after, e);
        } catch (SocketException e) {
            // reset: closed as well
        }
        connectionsKilled++;
        socket.close();
    }

    private void send(OutputStream out, byte[] bytes) throws IOException {
        send(out, bytes, 1);
    }

    private void send(OutputStream out, byte[] bytes, int frameCount) throws IOException {
        try {
            out.write(bytes);
            out.flush();
        } catch (SocketException e) {
            throw new IOException("the server closed while " + frameCount + " frames were sent", e);
        }
        framesSent += frameCount;
    }
}
