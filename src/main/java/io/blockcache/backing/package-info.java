/**
 * Backing stores chosen by URI ({@link io.blockcache.backing.BackingUris}: {@code file:PATH} or a plain path,
 * {@code nbd://host:port/export} and {@code s3://bucket/prefix}), the asynchronous NBD client
 * ({@link io.blockcache.backing.NbdDevice}) that makes a remote NBD export a {@link io.blockcache.device.BlockDevice},
 * and the S3 volume device ({@link io.blockcache.backing.S3Device}: chunk objects on the AWS SDK, opened by
 * {@link io.blockcache.backing.S3Backing}, owned through {@link io.blockcache.backing.S3Lease}).
 *
 * <p>Owns: the NBD client's sockets, their sender and reader threads, the reconnect thread, and the replay log of
 * writes acknowledged since the last flush; the S3 device's I/O threads, staged chunks, retry timers (on its loop,
 * jitter from a {@link io.blockcache.loop.Prng} seeded by the volume) and lease renewal thread.
 * Threads: a device is submitted to on its owning loop's thread; its completions come back through
 * {@link io.blockcache.device.CompletionBatcher}; opening a backing (connect and handshake, or the S3 checks and
 * the owner record) blocks and belongs to start-up, never to a loop step. Uses {@code loop}, {@code device}, the
 * protocol numbers of {@code nbd} ({@link io.blockcache.nbd.NbdProtocol}), and the AWS SDK.
 */
package io.blockcache.backing;
