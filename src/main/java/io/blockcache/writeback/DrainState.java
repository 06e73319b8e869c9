package io.blockcache.writeback;

/**
 * The states of a drain job (docs/WRITEBACK.md, "Drain jobs"). {@link #RUNNING} and {@link #PAUSED} are active: the
 * job governs the volume's writeback. The other three are final.
 *
 * <pre>
 *   RUNNING ⇄ PAUSED        (pause, resume)
 *   RUNNING, PAUSED → DONE       nothing dirty, clean markings durable in the journal
 *   RUNNING, PAUSED → CANCELLED  cancel: writeback returns to its normal policy, dirty data stays dirty
 *   RUNNING, PAUSED → FAILED     a writeback failure, or the journal commit at the end failed
 * </pre>
 */
public enum DrainState {
    /** Writing back at full speed, or at the rate its cap or deadline sets. */
    RUNNING,
    /** Holds every writeback pass of the volume until resumed or cancelled. */
    PAUSED,
    /** Stopped by the operator; what was dirty stays dirty. */
    CANCELLED,
    /** Nothing was dirty and the clean markings were committed to the journal. */
    DONE,
    /** Ended by a writeback failure or a failed journal commit; the error says which. */
    FAILED;

    /** True for {@link #RUNNING} and {@link #PAUSED}. */
    public boolean active() {
        return this == RUNNING || this == PAUSED;
    }
}
