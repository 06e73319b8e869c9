package io.blockcache.format;

import java.util.Objects;

/**
 * Why a structure could not be decoded: a kind, the byte offset of the offending field (relative to the
 * buffer the decoder was given, or to the journal ring for the scanner) and a message saying what was
 * expected and what was found.
 *
 * @param kind what class of damage this is
 * @param offsetBytes byte offset of the offending field or structure
 * @param message human-readable explanation with offset, expected and found values
 */
public record DecodeError(Kind kind, long offsetBytes, String message) {
    /** The classes of damage a decoder distinguishes. */
    public enum Kind {
        /** Fewer bytes than the structure needs. */
        TRUNCATED,
        /** The 8-byte magic does not name the expected structure. */
        BAD_MAGIC,
        /** The format version is not one this code reads. */
        UNKNOWN_VERSION,
        /** The CRC32C stored in the structure does not match its bytes. */
        BAD_CRC,
        /** The CRC matched but a field holds a value the format forbids (a writer bug). */
        BAD_FIELD,
        /** A journal record or checkpoint item carries a type byte this version does not define. */
        UNKNOWN_TYPE,
        /** Neither copy of a duplicated structure (the superblock pair) is valid. */
        NO_VALID_COPY
    }

    public DecodeError {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(message, "message");
    }

    /** Returns a copy whose offset is shifted by {@code baseBytes}, for errors found inside a larger structure. */
    public DecodeError shifted(long baseBytes) {
        return new DecodeError(kind, offsetBytes + baseBytes, message);
    }

    @Override
    public String toString() {
        return kind + " at byte " + offsetBytes + ": " + message;
    }
}
