package io.blockcache.sim;

import java.util.ArrayList;
import java.util.List;

/**
 * The crash points of a run, for crash-point enumeration (CrashMonkey / ALICE style): counts its
 * <b>boundaries</b>, every request submission and every completion on the devices wrapped in a
 * {@link CrashPointDevice} sharing this clock, and halts the run right after boundary {@code limit}. Once
 * halted, no further boundary happens: a submission never reaches its device and a completion never reaches
 * its caller, exactly as if the power went out at that instant, even in the middle of a loop event. The driver
 * then stops stepping the loop (see {@link #halted()}) and cuts the power of the devices themselves.
 *
 * <p>A run replayed from scratch is deterministic, so boundary {@code k} of a run with limit {@code k} is
 * boundary {@code k} of the counting run ({@link #counting}). Thread rule: the simulation driver's thread.
 */
public final class CrashPointClock {
    /** Boundaries a described run records at most: a scripted trace has a few hundred. */
    private static final int DESCRIPTIONS_MAX = 100_000;

    private final long limit;
    private final List<String> descriptions;
    private long passed;

    private CrashPointClock(long limit, boolean describe) {
        if (limit < 0) {
            throw new IllegalArgumentException("limit must be >= 0: " + limit);
        }
        this.limit = limit;
        this.descriptions = describe ? new ArrayList<>() : null;
    }

    /** A clock that never halts and records what each boundary was (for failure messages). */
    public static CrashPointClock counting() {
        return new CrashPointClock(Long.MAX_VALUE, true);
    }

    /** A clock that halts the run right after {@code boundaries} boundaries (0: before the first). */
    public static CrashPointClock haltAfter(long boundaries) {
        return new CrashPointClock(boundaries, false);
    }

    /** Boundaries passed so far. */
    public long boundaries() {
        return passed;
    }

    /** True once the run has reached its limit: the driver must stop stepping the loop and cut the power. */
    public boolean halted() {
        return passed >= limit;
    }

    /**
     * What boundary {@code number} (1-based) was, e.g. {@code "backing write [1048576, +65536) done"}; only a
     * {@link #counting} clock records them.
     */
    public String describe(long number) {
        if (descriptions == null || number < 1 || number > descriptions.size()) {
            return "boundary " + number;
        }
        return descriptions.get((int) (number - 1));
    }

    /**
     * Asks for a boundary to happen; false if the run is halted (the caller then drops the submission or the
     * completion). {@code device}, {@code what}, {@code offsetBytes} and {@code lengthBytes} describe it.
     */
    boolean pass(String device, String what, long offsetBytes, long lengthBytes) {
        if (halted()) {
            return false;
        }
        passed++;
        if (descriptions != null && descriptions.size() < DESCRIPTIONS_MAX) {
            descriptions.add(device + " " + what + (lengthBytes > 0 || offsetBytes > 0
                    ? " [" + offsetBytes + ", +" + lengthBytes + ")" : ""));
        }
        return true;
    }
}
