package io.blockcache.admin;

/**
 * The last drain job the admin API started (or took up after a restart) for one volume. Immutable.
 *
 * @param id number of the drain, counting from 1 per volume since the admin server started; 0 = none yet
 * @param state {@code none}, {@code running}, {@code paused}, {@code cancelled}, {@code done} (nothing dirty and the
 *     cleans durable in the journal) or {@code failed}
 * @param dirtyBytesLeft dirty bytes at the last progress report
 * @param writtenBackBytes bytes written back and marked clean since the drain began
 * @param bytesPerSecond writeback rate measured over the time the drain ran (0 until something was cleaned)
 * @param etaMs estimated time left at that rate, in milliseconds; -1 while no rate is known or while paused
 * @param error why the drain failed or was cancelled, or null
 * @param rateMaxBytesPerSecond the drain's rate cap; 0 = none
 * @param rateCeilingBytesPerSecond the rate the drain is held to now (the cap, or what the deadline needs with a
 *     margin); 0 = full speed
 * @param deadlineEpochMs the deadline, wall-clock milliseconds since 1970; 0 = none
 * @param deadlineInMs time left until the deadline (negative once passed); meaningless without a deadline
 * @param neededBytesPerSecond what the deadline needs now: dirty bytes / time left; 0 without a deadline
 * @param deadlineWarning why the deadline may be missed, or that it was; null if on track or none
 * @param restored true if the job was taken up from the drain-job file when the server started
 * @param finishing true while a running or paused job has nothing left to write back and is committing its clean
 *     markings: it can no longer be paused or cancelled (those answer 409 saying so) and ends in moments
 */
public record DrainSnapshot(long id, String state, long dirtyBytesLeft, long writtenBackBytes, double bytesPerSecond,
                            long etaMs, String error, long rateMaxBytesPerSecond, long rateCeilingBytesPerSecond,
                            long deadlineEpochMs, long deadlineInMs, double neededBytesPerSecond,
                            String deadlineWarning, boolean restored, boolean finishing) {
    /** The value before any drain. */
    static final DrainSnapshot NONE = new DrainSnapshot(0, "none", 0, 0, 0.0, -1, null, 0, 0, 0, 0, 0.0, null,
            false, false);

    /** True while the job is running or paused. */
    boolean active() {
        return state.equals("running") || state.equals("paused");
    }
}
