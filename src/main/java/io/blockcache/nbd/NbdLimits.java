package io.blockcache.nbd;

import java.time.Duration;
import java.util.Objects;

/**
 * What the NBD server allows a client, validated once here. Defaults live in {@link #DEFAULTS} with their
 * reasons; {@code serve} sets them from its {@code --nbd-*} flags (docs/CLI.md, docs/ARCHITECTURE.md "Limits").
 *
 * @param handshakeTimeout how long a connection may take from accept to the end of the handshake before it is
 *     closed (positive): a socket that never speaks holds a connection slot only this long
 * @param idleTimeout how long a connection in transmission may go with no request in flight and no byte read
 *     before it is closed; {@link Duration#ZERO} = never (the default: a kernel client with a mounted but quiet
 *     file system is legitimately idle for days; dead peers are found by TCP keepalive)
 * @param replyStallTimeout how long a reply may sit half-written because the client does not read before the
 *     connection is closed; zero = never. A client that sends READs and never reads the replies would otherwise
 *     hold its buffers, and so part of {@code bufferBytesMax}, forever
 * @param tcpKeepaliveIdle idle time before the first TCP keepalive probe; zero turns keepalive off
 * @param connectionsMax connections served at once, in total; more are closed at accept
 * @param connectionsPerAddressMax connections served at once from one client IP address
 * @param bufferBytesMax direct memory for request payloads and reply data over all connections; a request that
 *     would exceed it waits until replies free enough (it never fails)
 */
public record NbdLimits(Duration handshakeTimeout, Duration idleTimeout, Duration replyStallTimeout,
                        Duration tcpKeepaliveIdle, int connectionsMax, int connectionsPerAddressMax,
                        long bufferBytesMax) {
    /**
     * Defaults. Handshake 10 s: QEMU's NBD server limit (NBD_DEFAULT_HANDSHAKE_MAX_SECS, added with the fix of
     * CVE-2024-7409, a denial of service by connections that never finish the handshake). Idle off (see
     * {@code idleTimeout}). Reply stall 60 s: long enough that a client that is merely slow (a busy VM, a
     * congested link) is not cut off. Keepalive probes after
     * 60 s instead of the kernel's 2 h, so a vanished peer frees its slot within about two minutes. 256
     * connections, 64 per address (every local client shares 127.0.0.1; fio's jobs and qemu's multi-conn use a
     * few each). 256 MiB of buffers: four maximum-size requests, well under the JVM's default direct-memory
     * limit (the heap's maximum) on any machine with more than 1 GiB of heap.
     */
    public static final NbdLimits DEFAULTS = new NbdLimits(Duration.ofSeconds(10), Duration.ZERO,
            Duration.ofSeconds(60), Duration.ofSeconds(60), 256, 64, 256L << 20);

    /** Connections beyond this are not a setting but a mistake (each costs two virtual threads and 64 KiB). */
    public static final int CONNECTIONS_LIMIT = 65_536;
    /** The budget must hold the largest request's buffer, or such a request would wait forever. */
    public static final long BUFFER_BYTES_MIN = ConnectionBudget.REQUEST_BUFFER_BYTES_MAX;
    /** An upper bound that catches a unit mistake (a size given in bytes where KiB was meant is still fine). */
    public static final long BUFFER_BYTES_LIMIT = 1L << 40;

    /** @throws IllegalArgumentException naming the first value that is out of range */
    public NbdLimits {
        Objects.requireNonNull(handshakeTimeout, "handshakeTimeout");
        Objects.requireNonNull(idleTimeout, "idleTimeout");
        Objects.requireNonNull(replyStallTimeout, "replyStallTimeout");
        Objects.requireNonNull(tcpKeepaliveIdle, "tcpKeepaliveIdle");
        if (handshakeTimeout.isNegative() || handshakeTimeout.isZero()) {
            throw new IllegalArgumentException("the NBD handshake timeout must be positive, got " + handshakeTimeout);
        }
        requireNotNegative("idle timeout", idleTimeout);
        requireNotNegative("reply stall timeout", replyStallTimeout);
        requireNotNegative("TCP keepalive idle time", tcpKeepaliveIdle);
        if (tcpKeepaliveIdle.toSeconds() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("the TCP keepalive idle time is too long: " + tcpKeepaliveIdle);
        }
        if (connectionsMax < 1 || connectionsMax > CONNECTIONS_LIMIT) {
            throw new IllegalArgumentException("NBD connections must be 1.." + CONNECTIONS_LIMIT + ", got "
                    + connectionsMax);
        }
        if (connectionsPerAddressMax < 1 || connectionsPerAddressMax > connectionsMax) {
            throw new IllegalArgumentException("NBD connections per address must be 1.." + connectionsMax
                    + " (the total), got " + connectionsPerAddressMax);
        }
        if (bufferBytesMax < BUFFER_BYTES_MIN || bufferBytesMax > BUFFER_BYTES_LIMIT) {
            throw new IllegalArgumentException("the NBD buffer budget must be " + BUFFER_BYTES_MIN + ".."
                    + BUFFER_BYTES_LIMIT + " bytes (at least one maximum-size request), got " + bufferBytesMax);
        }
    }

    /**
     * The most direct memory the server's buffers can take under these limits: the budget, the pool's free
     * buffers (twice its retained bytes, counting each buffer's alignment page) and every connection's staging
     * buffer.
     */
    public long directMemoryBytesMax() {
        return bufferBytesMax + directBytesBesideBudget(connectionsMax);
    }

    /** The direct memory beside the budget: the pool's free buffers and every connection's staging buffer. */
    public static long directBytesBesideBudget(int connectionsMax) {
        return 2 * PayloadBuffers.RETAINED_BYTES_MAX
                + (long) connectionsMax * (FrameReader.STAGING_BYTES + PayloadBuffers.ALIGNMENT_BYTES);
    }

    /** These limits with other timeouts (tests use short ones). */
    public NbdLimits withTimeouts(Duration handshake, Duration idle, Duration replyStall) {
        return new NbdLimits(handshake, idle, replyStall, tcpKeepaliveIdle, connectionsMax, connectionsPerAddressMax,
                bufferBytesMax);
    }

    /** These limits with other connection counts. */
    public NbdLimits withConnections(int total, int perAddress) {
        return new NbdLimits(handshakeTimeout, idleTimeout, replyStallTimeout, tcpKeepaliveIdle, total, perAddress,
                bufferBytesMax);
    }

    /** These limits with another buffer budget. */
    public NbdLimits withBufferBytesMax(long bytes) {
        return new NbdLimits(handshakeTimeout, idleTimeout, replyStallTimeout, tcpKeepaliveIdle, connectionsMax,
                connectionsPerAddressMax, bytes);
    }

    /** These limits with another keepalive idle time (zero: off). */
    public NbdLimits withTcpKeepaliveIdle(Duration idle) {
        return new NbdLimits(handshakeTimeout, idleTimeout, replyStallTimeout, idle, connectionsMax,
                connectionsPerAddressMax, bufferBytesMax);
    }

    private static void requireNotNegative(String what, Duration value) {
        if (value.isNegative()) {
            throw new IllegalArgumentException("the NBD " + what + " must not be negative, got " + value);
        }
    }
}
