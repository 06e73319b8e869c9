package io.blockcache.nbd;

/**
 * The fields of one transmission-phase request header, whoever holds them: a decoded {@link NbdRequest} value, or
 * a reused {@link InFlightRequest} of a connection the loop serves (no record per request there). What
 * decides about a request ({@link RequestCheck}, {@link ConnectionBudget}, {@link BlockStatusReporter}) reads it
 * through this view, so both paths share one set of rules.
 *
 * <p>Thread rule: as the holder's.
 */
interface RequestHeader {
    /** Command flags (NbdProtocol.CMD_FLAG_*). */
    int flags();

    /** The command (NbdProtocol.CMD_*). */
    int type();

    /** The client's cookie, echoed in every reply. */
    long handle();

    /** The offset; negative means at or beyond 2^63 bytes (the wire field is unsigned), always out of range. */
    long offsetBytes();

    /** The length, 0 .. 2^32-1. */
    long lengthBytes();

    /** True if {@link #flags} has every bit of {@code flag}. */
    default boolean has(int flag) {
        return (flags() & flag) == flag;
    }
}
