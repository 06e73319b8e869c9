package io.blockcache.admin;

import java.time.Duration;
import java.util.Objects;

/**
 * What the admin API allows one request and all of them together, validated once here; defaults live in
 * {@link #DEFAULTS} with their reasons (docs/OPERATIONS.md §10, "What bounds the admin API").
 *
 * @param requestReadTime how long a request may take from its first byte to its last (request line, headers and
 *     body together, positive); a client that is slower is cut off: 408 once its headers are in, a closed
 *     connection before. This is a bound on the whole request, not on the gap between two reads, so a client that
 *     trickles one byte a second is cut off as surely as one that stops
 * @param answerTime how long a request may take from its last byte to the end of its answer (positive): the wait
 *     for the loop, for the drain-job file, and a client that does not read its answer; then the connection closes
 * @param requestsMax requests in progress at once, in total (each holds one thread from its first byte to the end
 *     of its answer); a request beyond it finds its connection closed at once
 * @param requestsPerAddressMax requests in progress at once from one client IP address, counted once the headers
 *     say who sent them; one more is answered 429
 */
public record AdminLimits(Duration requestReadTime, Duration answerTime, int requestsMax, int requestsPerAddressMax) {
    /**
     * Defaults. Request read 10 s: a request line, headers and at most {@link AdminServer#REQUEST_BODY_BYTES_MAX}
     * bytes of body take any working client well under a second; the same bound as the NBD handshake. Answer 30 s:
     * above the longest wait an answer may legitimately have ({@link AdminServer#DRAIN_SAVE_WAIT}, 10 s, after
     * {@link AdminServer#LOOP_ANSWER_MS_MAX}, 5 s). 256 requests: a few operators, a dashboard and a scraper use a
     * handful; 256 idle-stacked threads are a few MiB, and a slow-header flood needs that many connections held
     * open to be felt. 16 per address: a browser opens six connections to a host, a scraper and the commands a few
     * more; every local client shares 127.0.0.1.
     */
    public static final AdminLimits DEFAULTS = new AdminLimits(Duration.ofSeconds(10), Duration.ofSeconds(30),
            256, 16);

    /** More requests at once than this is not a setting but a mistake: each holds a platform thread. */
    static final int REQUESTS_MAX_LIMIT = 4096;

    /** Validates every value and the relation between the two counts. */
    public AdminLimits {
        Objects.requireNonNull(requestReadTime, "requestReadTime");
        Objects.requireNonNull(answerTime, "answerTime");
        if (requestReadTime.isNegative() || requestReadTime.isZero()) {
            throw new IllegalArgumentException("the admin request read time must be positive: " + requestReadTime);
        }
        if (answerTime.isNegative() || answerTime.isZero()) {
            throw new IllegalArgumentException("the admin answer time must be positive: " + answerTime);
        }
        if (requestsMax < 1 || requestsMax > REQUESTS_MAX_LIMIT) {
            throw new IllegalArgumentException("admin requests at once must be 1 to " + REQUESTS_MAX_LIMIT + ": "
                    + requestsMax);
        }
        if (requestsPerAddressMax < 1 || requestsPerAddressMax > requestsMax) {
            throw new IllegalArgumentException("admin requests at once per address must be 1 to the total ("
                    + requestsMax + "): " + requestsPerAddressMax);
        }
    }
}
