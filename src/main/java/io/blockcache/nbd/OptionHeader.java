package io.blockcache.nbd;

/**
 * The fixed part of one option the client sends during the handshake.
 *
 * @param option the option number (NbdProtocol.OPT_*)
 * @param dataBytes length of the option data that follows, in bytes (unsigned 32 bits on the wire)
 */
public record OptionHeader(int option, long dataBytes) {
}
