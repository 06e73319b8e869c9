/**
 * Backing stores chosen by URI ({@link io.blockcache.backing.BackingUris}: {@code file:PATH} or a plain path, and
 * {@code nbd://host:port/export}), and the asynchronous NBD client ({@link io.blockcache.backing.NbdDevice}) that
 * makes a remote NBD export a {@link io.blockcache.device.BlockDevice}.
 *
 * <p>Owns: the client's sockets, their sender and reader threads, the reconnect thread, and the replay log of
 * writes acknowledged since the last flush. Threads: a device is submitted to on its owning loop's thread;
 * its completions come back through {@link io.blockcache.device.CompletionBatcher}; opening a backing (connect
 * and handshake) blocks and belongs to start-up, never to a loop step. Uses {@code loop}, {@code device}, and
 * the protocol numbers of {@code nbd} ({@link io.blockcache.nbd.NbdProtocol}).
 */
package io.blockcache.backing;
