/**
 * The NBD protocol: a pure codec of handshake and transmission frames ({@link io.blockcache.nbd.HandshakeCodec},
 * {@link io.blockcache.nbd.TransmissionCodec}), and the server transport ({@link io.blockcache.nbd.NbdServer})
 * that runs each connection's reader and reply writer on their own virtual threads and hands requests to the
 * volumes' loop.
 *
 * <p>Owns: the bounds against hostile clients ({@link io.blockcache.nbd.NbdLimits}: timeouts, connection limits,
 * one buffer budget for every connection; docs/OPERATIONS.md "Limits"), per-connection bounds (requests and
 * buffered bytes in flight), the per-export sector range lock that makes read-modify-write of partial sectors
 * safe, the mapping of volume outcomes to NBD errors, and TLS (NBD_OPT_STARTTLS, {@link io.blockcache.nbd.TlsSettings}:
 * X.509 through the JDK, PSK through BouncyCastle, credentials checked once at start-up; docs/OPERATIONS.md §9), and
 * per-export allow-lists of address ranges and PSK users ({@link io.blockcache.nbd.ExportAccess}, checked in the
 * handshake; docs/OPERATIONS.md §10).
 * Threads: codecs on any thread; readers and writers on their virtual threads; request execution, the range
 * lock and block status on the loop thread. Talks to volumes only through their public API.
 */
package io.blockcache.nbd;
