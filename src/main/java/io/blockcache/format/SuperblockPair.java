package io.blockcache.format;

import io.blockcache.loop.Checks;
import java.util.Objects;

/**
 * Reading the two superblock copies: the valid copy with the higher sequence wins (A on a tie), and the
 * result says precisely what is wrong with the other copy.
 *
 * <p>Writing rule (the writer lives in {@code cache}; the rule is here because the reader depends on it):
 * every rewrite writes copy A, flushes, then writes copy B and flushes, both with the same new sequence.
 * A power cut can therefore tear at most one copy, and the other holds either the new or the previous
 * superblock.
 *
 * <pre>
 *  cache device
 *  0          4096        8192                 dataStartBytes (1 MiB)
 *  +----------+-----------+---- zero ----------+----------+----------+--
 *  | copy A   | copy B    |                    | bucket 0 | bucket 1 | ...
 *  +----------+-----------+--------------------+----------+----------+--
 * </pre>
 *
 * @param chosen the superblock to use
 * @param chosenCopy which copy it came from
 * @param otherStatus what the other copy holds: {@link OtherStatus#SAME}, {@link OtherStatus#OLDER} or
 *     {@link OtherStatus#INVALID}
 * @param otherError when the other copy is invalid, why (offsets are cache-device byte offsets); otherwise null
 * @param otherSequence the other copy's sequence when it is valid, otherwise -1
 */
public record SuperblockPair(CacheSuperblock chosen, Copy chosenCopy, OtherStatus otherStatus,
        DecodeError otherError, long otherSequence) {
    /** The two copies and where they live. */
    public enum Copy {
        A(0), B(CacheSuperblock.BYTES);

        private final long offsetBytes;

        Copy(long offsetBytes) {
            this.offsetBytes = offsetBytes;
        }

        /** Byte offset of this copy on the cache device. */
        public long offsetBytes() {
            return offsetBytes;
        }
    }

    /** What the copy that was not chosen holds. */
    public enum OtherStatus {
        /** A valid copy with the same sequence (the normal case). */
        SAME,
        /** A valid copy with a lower sequence: a rewrite stopped between the two writes. */
        OLDER,
        /** Undecodable: see {@link #otherError()}. */
        INVALID
    }

    public SuperblockPair {
        Objects.requireNonNull(chosen, "chosen");
        Objects.requireNonNull(chosenCopy, "chosenCopy");
        Objects.requireNonNull(otherStatus, "otherStatus");
        Checks.require((otherStatus == OtherStatus.INVALID) == (otherError != null),
                "otherError must be set exactly when the other copy is invalid");
    }

    /** Returns true if the other copy must be rewritten (it is older or invalid). */
    public boolean otherNeedsRepair() {
        return otherStatus != OtherStatus.SAME;
    }

    /** A one-line description of the pair for logs and the {@code check} command. */
    public String describe() {
        Copy other = chosenCopy == Copy.A ? Copy.B : Copy.A;
        String head = "using copy " + chosenCopy + " (sequence " + chosen.sequence() + "); copy " + other;
        return switch (otherStatus) {
            case SAME -> head + " is identical in sequence";
            case OLDER -> head + " is older (sequence " + otherSequence + ")";
            case INVALID -> head + " at byte " + other.offsetBytes() + " is invalid: " + otherError;
        };
    }

    /**
     * As {@link #read(byte[], byte[])}, from the first {@code 2 * CacheSuperblock.BYTES} of a cache device (copy A at
     * 0, copy B behind it); a shorter {@code head} reads as zeroes past its end, which decode as invalid.
     */
    public static DecodeResult<SuperblockPair> readHead(byte[] head) {
        byte[] both = java.util.Arrays.copyOf(head, 2 * CacheSuperblock.BYTES);
        return read(java.util.Arrays.copyOfRange(both, 0, CacheSuperblock.BYTES),
                java.util.Arrays.copyOfRange(both, CacheSuperblock.BYTES, 2 * CacheSuperblock.BYTES));
    }

    /**
     * Decodes both copies and chooses one; when neither is valid the error (kind
     * {@link DecodeError.Kind#NO_VALID_COPY}) names what is wrong with each.
     */
    public static DecodeResult<SuperblockPair> read(byte[] copyA, byte[] copyB) {
        DecodeResult<CacheSuperblock> a = CacheSuperblock.decode(copyA, 0);
        DecodeResult<CacheSuperblock> b = CacheSuperblock.decode(copyB, 0);
        if (!a.isOk() && !b.isOk()) {
            return DecodeResult.failed(new DecodeError(DecodeError.Kind.NO_VALID_COPY, 0,
                    "no valid superblock: copy A at byte " + Copy.A.offsetBytes() + ": " + a.error()
                            + "; copy B at byte " + Copy.B.offsetBytes() + ": "
                            + b.error().shifted(Copy.B.offsetBytes())));
        }
        if (!b.isOk()) {
            return DecodeResult.ok(new SuperblockPair(a.value(), Copy.A, OtherStatus.INVALID,
                    b.error().shifted(Copy.B.offsetBytes()), -1));
        }
        if (!a.isOk()) {
            return DecodeResult.ok(new SuperblockPair(b.value(), Copy.B, OtherStatus.INVALID, a.error(), -1));
        }
        long sequenceA = a.value().sequence();
        long sequenceB = b.value().sequence();
        if (sequenceB > sequenceA) {
            return DecodeResult.ok(new SuperblockPair(b.value(), Copy.B, OtherStatus.OLDER, null, sequenceA));
        }
        OtherStatus status = sequenceA == sequenceB ? OtherStatus.SAME : OtherStatus.OLDER;
        return DecodeResult.ok(new SuperblockPair(a.value(), Copy.A, status, null, sequenceB));
    }
}
