package io.blockcache.writeback;

/**
 * Progress of a drain ("write everything back now").
 *
 * @param dirtyBytesLeft dirty bytes still in the cache for the volume
 * @param writtenBackBytes bytes written back and marked clean since the drain began
 * @param bytesPerSecond measured writeback rate since the drain began (0 until something was cleaned)
 * @param etaNs estimated time left at that rate, in nanoseconds; -1 when no rate is known yet
 * @param done true for the last report, when nothing is dirty
 */
public record DrainProgress(long dirtyBytesLeft, long writtenBackBytes, double bytesPerSecond, long etaNs,
                            boolean done) {
}
