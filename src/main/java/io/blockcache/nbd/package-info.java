/**
 * The NBD protocol: a pure codec of handshake and transmission frames, and the server transport
 * that runs each connection on its own virtual thread and hands requests to a volume.
 *
 * <p>Talks to volumes only through their public API.
 */
package io.blockcache.nbd;
