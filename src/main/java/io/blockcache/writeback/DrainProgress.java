package io.blockcache.writeback;

/**
 * Progress of a drain ("write everything back now").
 *
 * @param state the job's state at this report
 * @param dirtyBytesLeft dirty bytes still in the cache for the volume
 * @param writtenBackBytes bytes written back and marked clean since the drain began
 * @param bytesPerSecond writeback rate measured over the time the drain ran (paused time left out; 0 until
 *     something was cleaned)
 * @param etaNs estimated time left at that rate, in nanoseconds; -1 when no rate is known yet or while paused
 * @param rateCeilingBytesPerSecond the rate the drain is held to now (its cap, or what its deadline needs with a
 *     margin); 0 = full speed
 * @param neededBytesPerSecond what the deadline needs now: dirty bytes / time left (0 without a deadline)
 * @param deadlineWarning why the deadline may be missed (or that it was), or null
 * @param done true for the last report, when nothing is dirty
 */
public record DrainProgress(DrainState state, long dirtyBytesLeft, long writtenBackBytes, double bytesPerSecond,
                            long etaNs, long rateCeilingBytesPerSecond, double neededBytesPerSecond,
                            String deadlineWarning, boolean done) {
}
