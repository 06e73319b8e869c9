package io.blockcache.cli;

/**
 * The event names of {@code serve}'s log, in one place: stable, so scripts and alerts can match
 * {@code event=NAME} (text) or {@code "event":"NAME"} (JSON) while the messages' words improve
 * (docs/OPERATIONS.md "Logs"). Lower case, dots between the area and what happened.
 */
final class ServeEvents {
    private ServeEvents() {
    }

    /** Opening the cache: files attached, formatting, recovery's steps (info). */
    static final String HOST_OPEN = "host.open";
    /** The start was refused: bad settings, a port in use, a cache that will not open (error). */
    static final String START_FAILED = "serve.start_failed";
    /** The machine's memory looks short for the JVM options asked (warning). */
    static final String MEMORY_LOW = "serve.memory_low";
    /** The admin API listens off loopback (warning). */
    static final String ADMIN_EXPOSED = "admin.exposed";
    /** An admin request was refused for its bearer token (warning). */
    static final String ADMIN_REFUSED = "admin.refused";
    /** Saving the drain jobs failed (warning). */
    static final String DRAIN_SAVE_FAILED = "drain.save_failed";
    /** A drain job of the last run was taken up (info). */
    static final String DRAIN_RESTORED = "drain.restored";
    /** A file system has less free space than its sparse files may need (warning). */
    static final String FILE_SPACE_LOW = "files.space_low";
    /** The NBD server's message about a client: refused, timed out, broke the protocol (warning). */
    static final String NBD_CLIENT = "nbd.client";
    /** Telling systemd the state failed (warning). */
    static final String SYSTEMD_NOTIFY_FAILED = "systemd.notify_failed";
    /** A stop began (info). */
    static final String STOPPING = "serve.stopping";
    /** Stopped; clean or not is in the level and {@code clean} (info or error). */
    static final String STOPPED = "serve.stopped";
    /** Something went wrong while stopping: requests in flight, the clean shutdown, a listener (warning, error). */
    static final String STOP_PROBLEM = "serve.stop_problem";
    /** The cache stopped on an internal error (fail-stop; error). */
    static final String FAIL_STOP = "serve.fail_stop";
    /** Lines of one event were not written: a flood ({@link FloodLimit}; warning). */
    static final String LOG_SUPPRESSED = "log.suppressed";
}
