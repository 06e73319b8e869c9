package io.blockcache.admin;

import java.util.Locale;

/**
 * Whether a volume can do its job, derived from what its stats already show, for an alert to fire on
 * ({@code blockcache_volume_health}, {@code blockcache_volume_health_reason}; docs/OPERATIONS.md §7 "Health"):
 * <ul>
 *   <li>{@code failed}: a flush of the backing device failed; the failure is sticky (docs/OPERATIONS.md "The
 *   backing device fails"), so nothing of this volume can be made durable on the backing device until a restart;</li>
 *   <li>{@code degraded}: it still serves requests but something needs a hand: its backing file changed under it
 *   (writeback is held until a restart), its remote backing is disconnected, or the cache device's file changed
 *   under the cache set;</li>
 *   <li>{@code ok}: none of these.</li>
 * </ul>
 * A fail-stop stops the loop the stats come from: {@code /metrics} then answers an error and the scrape's {@code up}
 * is 0, which the shipped alerts treat as down. The reason is one value of a closed set, so the label stays bounded.
 *
 * @param state the worst state found
 * @param reason why ({@link Reason#NONE} when ok); the first found of the worst state
 *
 * <p>Thread rule: any thread (immutable).
 */
public record VolumeHealth(State state, Reason reason) {
    /** All well. */
    public static final VolumeHealth OK = new VolumeHealth(State.OK, Reason.NONE);

    /** The states, best first. */
    public enum State {
        OK, DEGRADED, FAILED;

        /** The label value. */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Why a volume is not ok; a closed set, so the label's cardinality is bounded. */
    public enum Reason {
        NONE(State.OK),
        BACKING_FLUSH_FAILED(State.FAILED),
        BACKING_CHANGED(State.DEGRADED),
        BACKING_DISCONNECTED(State.DEGRADED),
        CACHE_DEVICE_CHANGED(State.DEGRADED);

        private final State state;

        Reason(State state) {
            this.state = state;
        }

        /** The state this reason puts a volume in. */
        public State state() {
            return state;
        }

        /** The label value. */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public VolumeHealth {
        if (reason.state() != state) {
            throw new IllegalArgumentException(reason + " makes a volume " + reason.state() + ", not " + state);
        }
    }

    /** The health of one reason. */
    public static VolumeHealth of(Reason reason) {
        return new VolumeHealth(reason.state(), reason);
    }

    /**
     * The health of a volume from its parts: its writeback, its backing device and the cache device (either device
     * may be null where not known).
     */
    static VolumeHealth of(WritebackSnapshot writeback, StatsSnapshot.DeviceSnapshot backing,
                           StatsSnapshot.DeviceSnapshot cacheDevice) {
        if (writeback.backingFailure() != null) {
            return of(Reason.BACKING_FLUSH_FAILED);
        }
        if (writeback.degraded() != null || backing != null && backing.changed() != null) {
            return of(Reason.BACKING_CHANGED);
        }
        if (backing != null && backing.remote() != null && !backing.remote().connected()) {
            return of(Reason.BACKING_DISCONNECTED);
        }
        if (cacheDevice != null && cacheDevice.changed() != null) {
            return of(Reason.CACHE_DEVICE_CHANGED);
        }
        return OK;
    }
}
