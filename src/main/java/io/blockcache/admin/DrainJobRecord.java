package io.blockcache.admin;

import java.util.Objects;

/**
 * What survives a restart of one volume's drain job (docs/WRITEBACK.md, "Drain jobs"): enough to take a running or
 * paused job up again, or to say how the last one ended. Immutable.
 *
 * @param volume the export name
 * @param state {@code running}, {@code paused}, {@code cancelled}, {@code done} or {@code failed}
 * @param rateMaxBytesPerSecond the job's rate cap; 0 = none
 * @param deadlineEpochMs the deadline as wall-clock time (milliseconds since 1970, UTC), so that it means the same
 *     after a restart; 0 = none
 * @param error why the job failed or was cancelled, or null
 */
public record DrainJobRecord(String volume, String state, long rateMaxBytesPerSecond, long deadlineEpochMs,
                             String error) {
    /** The states a record may hold. */
    public static final java.util.List<String> STATES = java.util.List.of("running", "paused", "cancelled", "done",
            "failed");

    public DrainJobRecord {
        Objects.requireNonNull(volume, "volume");
        if (!STATES.contains(state)) {
            throw new IllegalArgumentException("drain job state must be one of " + STATES + ": " + state);
        }
        if (rateMaxBytesPerSecond < 0 || deadlineEpochMs < 0) {
            throw new IllegalArgumentException("rate cap and deadline must be >= 0 (0 = none): "
                    + rateMaxBytesPerSecond + ", " + deadlineEpochMs);
        }
    }
}
