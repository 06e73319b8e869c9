package io.blockcache.admin;

import java.io.IOException;
import java.util.List;

/**
 * Where the admin API keeps its drain jobs across restarts (the CLI's {@code DrainJobFile} in {@code serve}).
 *
 * <p>Thread rule: called on the admin server's one writer thread, never on the loop (it blocks on the disk).
 */
public interface DrainJobStore {
    /** Replaces what is stored with {@code jobs} (one per volume, name order), durably, all or nothing. */
    void save(List<DrainJobRecord> jobs) throws IOException;
}
