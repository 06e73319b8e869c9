package io.blockcache.backing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A TCP proxy on 127.0.0.1 (port 0) between an S3 client and S3Proxy that injects the faults of a flaky network on a
 * seeded schedule: connection {@code n} draws its fault from {@code new Random(seed, n)}, so a seed gives the same
 * faults to the same connections (the client's timing decides which requests use them). The faults:
 * <ul>
 *   <li>{@link Fault#RESET}: after a random number of request bytes, the connection is reset (RST, as a NAT or load
 *       balancer that dropped it) and the rest of the request never reaches the server;</li>
 *   <li>{@link Fault#STALL}: after a random number of request bytes, nothing moves for the stall time, then the
 *       connection is closed (a client whose socket timeout is shorter gives up first);</li>
 *   <li>{@link Fault#SLOW_DOWN}: the first request is answered {@code 503 SlowDown} without reaching the server
 *       (S3 throttling);</li>
 *   <li>{@link Fault#DRIBBLE}: bodies both ways move in 1 KiB pieces, one per millisecond (a slow link);</li>
 *   <li>{@link Fault#BLIP}: the connection starts a short outage (the blip time): until it ends every new
 *       connection is reset or answered 503, as when a route flaps or an endpoint restarts. A blip outlasts the
 *       SDK's own quick attempts, so only retries beyond them ride through it.</li>
 * </ul>
 * Every connection, faulty or not, is also reset once it carried a random 64 KiB to 1 MiB of requests, so that
 * pooled, kept-alive connections meet faults too and not only new ones. During an {@link #outage} every new
 * connection is reset at once or answered 503. A request cut short never reaches the server whole, so a retry
 * cannot be overtaken by the attempt it replaces.
 *
 * <p>Test harness, not engine code: one virtual thread per direction of each connection, blocking I/O, real time.
 */
final class FaultyTcpProxy implements AutoCloseable {
    /** What a connection suffers. */
    enum Fault { NONE, RESET, STALL, SLOW_DOWN, DRIBBLE, BLIP }

    /** The faults a connection may draw, all equally likely. */
    private static final Fault[] DRAWN = {Fault.RESET, Fault.STALL, Fault.SLOW_DOWN, Fault.DRIBBLE, Fault.BLIP};

    /** Request bytes after which a RESET or STALL strikes, at most: within the first one or two requests. */
    private static final int FAULT_OFFSET_BYTES_MAX = 96 << 10;
    private static final int LIFETIME_BYTES_MIN = 64 << 10;
    private static final int LIFETIME_BYTES_SPREAD = 1 << 20;
    private static final int DRIBBLE_PIECE_BYTES = 1024;
    private static final long DRIBBLE_PAUSE_NS = TimeUnit.MILLISECONDS.toNanos(1);
    /** Request headers longer than this are not S3's. */
    private static final int HEADER_BYTES_MAX = 64 << 10;
    private static final byte[] SLOW_DOWN_BODY = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>SlowDown"
            + "</Code><Message>Please reduce your request rate.</Message><RequestId>fault</RequestId></Error>")
            .getBytes(StandardCharsets.UTF_8);

    private final ServerSocket server;
    private final InetSocketAddress upstream;
    private final long seed;
    private final int faultPercent;
    private final long stallNs;
    private final long blipNs;
    private volatile long blipEndNs;
    private final Thread acceptor;
    private final AtomicLong connections = new AtomicLong();
    private final Map<Fault, AtomicLong> injected = new EnumMap<>(Fault.class);
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile boolean outage;
    private volatile boolean closed;

    private FaultyTcpProxy(ServerSocket server, URI upstream, long seed, int faultPercent, Duration stall,
                           Duration blip) {
        this.server = server;
        this.upstream = new InetSocketAddress(upstream.getHost(), upstream.getPort());
        this.seed = seed;
        this.faultPercent = faultPercent;
        this.stallNs = stall.toNanos();
        this.blipNs = blip.toNanos();
        this.blipEndNs = System.nanoTime();
        for (Fault fault : Fault.values()) {
            injected.put(fault, new AtomicLong());
        }
        this.acceptor = Thread.ofVirtual().name("faulty-proxy-accept").unstarted(this::acceptLoop);
    }

    /**
     * Listens on 127.0.0.1 and an ephemeral port, forwarding to {@code upstream} ({@code http://host:port}).
     *
     * @param faultPercent the share of connections that get a fault other than the lifetime reset, 0..100
     * @param stall how long a STALL holds a connection before closing it
     * @param blip how long the outage a BLIP starts lasts
     */
    static FaultyTcpProxy start(URI upstream, long seed, int faultPercent, Duration stall, Duration blip)
            throws IOException {
        if (faultPercent < 0 || faultPercent > 100) {
            throw new IllegalArgumentException("fault percent must be 0..100: " + faultPercent);
        }
        ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        FaultyTcpProxy proxy = new FaultyTcpProxy(server, upstream, seed, faultPercent, stall, blip);
        proxy.acceptor.start();
        return proxy;
    }

    /** The URL clients use instead of the upstream's. */
    URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getLocalPort());
    }

    /** While on, every new connection is reset at once or answered 503 SlowDown; connections open now are reset. */
    void outage(boolean on) {
        outage = on;
        if (on) {
            open.forEach(FaultyTcpProxy::reset);
        }
    }

    /** Faults of {@code kind} that struck so far (RESET counts the lifetime resets and those of outages too). */
    long injected(Fault kind) {
        return injected.get(kind).get();
    }

    /** Faults of every kind that struck so far. */
    long injectedTotal() {
        return injected.values().stream().mapToLong(AtomicLong::get).sum();
    }

    /** Connections accepted so far. */
    long connections() {
        return connections.get();
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                return; // closed
            }
            long number = connections.getAndIncrement();
            Thread.ofVirtual().name("faulty-proxy-" + number).start(() -> serve(client, number));
        }
    }

    private void serve(Socket client, long number) {
        Random random = new Random(seed * 1_000_003L + number);
        boolean down = outage || System.nanoTime() - blipEndNs < 0;
        Fault fault = down ? (number % 2 == 0 ? Fault.RESET : Fault.SLOW_DOWN)
                : random.nextInt(100) < faultPercent ? DRAWN[random.nextInt(DRAWN.length)] : Fault.NONE;
        if (fault == Fault.BLIP) {
            injected.get(Fault.BLIP).incrementAndGet();
            blipEndNs = System.nanoTime() + blipNs;
            open.forEach(FaultyTcpProxy::reset);
            fault = Fault.RESET;
            down = true;
        }
        long faultAtBytes = down ? 0 : random.nextInt(FAULT_OFFSET_BYTES_MAX);
        long lifetimeBytes = LIFETIME_BYTES_MIN + random.nextInt(LIFETIME_BYTES_SPREAD);
        open.add(client);
        try (client) {
            if (fault == Fault.SLOW_DOWN) {
                answerSlowDown(client);
                return;
            }
            if (fault == Fault.RESET && faultAtBytes == 0) {
                injected.get(Fault.RESET).incrementAndGet();
                reset(client);
                return;
            }
            try (Socket server = new Socket()) {
                server.connect(upstream, 5_000);
                open.add(server);
                boolean dribble = fault == Fault.DRIBBLE;
                if (dribble) {
                    injected.get(Fault.DRIBBLE).incrementAndGet();
                }
                Thread back = Thread.ofVirtual().start(() -> pump(server, client, dribble));
                long cutAtBytes = fault == Fault.RESET || fault == Fault.STALL ? faultAtBytes : lifetimeBytes;
                boolean cut = forward(client, server, dribble, cutAtBytes);
                if (cut) {
                    if (fault == Fault.STALL) {
                        injected.get(Fault.STALL).incrementAndGet();
                        LockSupport.parkNanos(stallNs); // the fault itself: a link on which nothing moves
                    } else {
                        injected.get(Fault.RESET).incrementAndGet();
                    }
                    reset(client);
                }
                server.close();
                back.join(TimeUnit.SECONDS.toMillis(30));
                open.remove(server);
            }
        } catch (IOException | InterruptedException e) {
            // the client or the server went away: the connection ends, as it would on a real network
        } finally {
            open.remove(client);
        }
    }

    /**
     * Copies requests from {@code client} to {@code server} until the client closes (false) or {@code cutAtBytes}
     * would be passed (true: the piece that would pass it is not sent, so the request stays incomplete).
     */
    private boolean forward(Socket client, Socket server, boolean dribble, long cutAtBytes) throws IOException {
        InputStream in = client.getInputStream();
        OutputStream out = server.getOutputStream();
        byte[] buffer = new byte[dribble ? DRIBBLE_PIECE_BYTES : 16 << 10];
        long sent = 0;
        while (true) {
            int read = in.read(buffer);
            if (read < 0) {
                return false;
            }
            if (sent + read > cutAtBytes) {
                return true;
            }
            out.write(buffer, 0, read);
            out.flush();
            sent += read;
            if (dribble) {
                LockSupport.parkNanos(DRIBBLE_PAUSE_NS); // the fault itself: a slow link
            }
        }
    }

    /** Copies answers from {@code server} to {@code client} until either side closes. */
    private static void pump(Socket server, Socket client, boolean dribble) {
        byte[] buffer = new byte[dribble ? DRIBBLE_PIECE_BYTES : 16 << 10];
        try {
            InputStream in = server.getInputStream();
            OutputStream out = client.getOutputStream();
            for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
                out.write(buffer, 0, read);
                out.flush();
                if (dribble) {
                    LockSupport.parkNanos(DRIBBLE_PAUSE_NS); // the fault itself: a slow link
                }
            }
            client.shutdownOutput();
        } catch (IOException e) {
            // one side went away
        }
    }

    /** Reads the first request's headers, then answers 503 SlowDown and closes, as a throttling S3 does. */
    private void answerSlowDown(Socket client) throws IOException {
        InputStream in = client.getInputStream();
        int matched = 0;
        for (int total = 0; matched < 4 && total < HEADER_BYTES_MAX; total++) {
            int b = in.read();
            if (b < 0) {
                return;
            }
            matched = b == "\r\n\r\n".charAt(matched) ? matched + 1 : b == '\r' ? 1 : 0;
        }
        injected.get(Fault.SLOW_DOWN).incrementAndGet();
        String head = "HTTP/1.1 503 Slow Down\r\nContent-Type: application/xml\r\nContent-Length: "
                + SLOW_DOWN_BODY.length + "\r\nx-amz-request-id: fault\r\nConnection: close\r\n\r\n";
        OutputStream out = client.getOutputStream();
        out.write(head.getBytes(StandardCharsets.US_ASCII));
        out.write(SLOW_DOWN_BODY);
        out.flush();
        client.shutdownOutput();
    }

    /** Closes {@code socket} with an RST rather than a FIN. */
    private static void reset(Socket socket) {
        try {
            socket.setSoLinger(true, 0);
            socket.close();
        } catch (IOException e) {
            // already gone
        }
    }

    @Override
    public void close() throws IOException, InterruptedException {
        closed = true;
        server.close();
        open.forEach(FaultyTcpProxy::reset);
        acceptor.join(TimeUnit.SECONDS.toMillis(10));
    }
}
