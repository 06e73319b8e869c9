package io.blockcache.admin;

/**
 * The last drain the admin API started for one volume ({@code POST /api/volumes/{name}/drain}). Immutable.
 *
 * @param id number of the drain, counting from 1 per volume since the admin server started; 0 = none yet
 * @param state {@code none}, {@code running}, {@code done} (nothing dirty and the cleans durable in the journal)
 *     or {@code failed}
 * @param dirtyBytesLeft dirty bytes at the last progress report
 * @param writtenBackBytes bytes written back and marked clean since the drain began
 * @param bytesPerSecond writeback rate measured since the drain began (0 until something was cleaned)
 * @param etaMs estimated time left at that rate, in milliseconds; -1 while no rate is known
 * @param error why the drain failed, or null
 */
public record DrainSnapshot(long id, String state, long dirtyBytesLeft, long writtenBackBytes, double bytesPerSecond,
                            long etaMs, String error) {
    /** The value before any drain. */
    static final DrainSnapshot NONE = new DrainSnapshot(0, "none", 0, 0, 0.0, -1, null);
}
