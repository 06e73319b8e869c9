package io.blockcache.volume;

import io.blockcache.loop.EventLoop;
import io.blockcache.loop.Timer;
import java.util.ArrayDeque;

/**
 * Slows writers down smoothly as dirty data nears its limit, instead of letting them run into a wall
 * (docs/GC.md, "Throttle"). A token-bucket pace: admitted write-back writes may add dirty sectors at
 * {@code rate × speedup}, where {@code rate} is what the backing device takes (its measured capability, or its
 * current write rate if higher) and {@code speedup} comes from {@link BypassPolicy#throttleSpeedup}: eightfold at
 * the throttle's start mark, 1 at the write-back cutoff (writers as fast as writeback drains), less beyond. Each
 * write waits until its sectors' tokens are due: latency rises with the pressure, never an error.
 *
 * <p>Bounds: no write is held longer than the configured maximum (debt beyond it is forgiven, so a burst
 * cannot queue unbounded delay); a write that is not throttled waits only if it overlaps a held write, and then
 * only until that one is released (no later than the held write's own bound). Holding is by loop timer, never a
 * sleep.
 *
 * <p>Order: release times never decrease in arrival order and ties run in arrival order (EventLoop contract),
 * so held writes, and writes queued behind them, reach {@link InFlightWrites} in submission order: the newest
 * submission still wins.
 *
 * <p>Thread rule: the loop thread.
 */
final class WriteThrottle {
    /** How much faster than writeback the front end may add dirty data at the throttle's start mark (ours). */
    static final double SPEEDUP_AT_START = 8.0;
    /** Past full pressure the pace falls below writeback's, down to this share of it, so the dirty share recedes. */
    static final double SPEEDUP_MIN = 0.25;

    private final EventLoop loop;
    private final ArrayDeque<Held> held = new ArrayDeque<>();
    private long nextTokenNs;
    private Timer timer;

    /** A write waiting for its release time. */
    private record Held(long startSector, long endSector, long releaseNs, Runnable task) {
    }

    WriteThrottle(EventLoop loop) {
        this.loop = loop;
    }

    /**
     * The delay for a write of {@code lengthSectors} that adds dirty data, and takes its tokens.
     *
     * @param speedup how many times the backing rate new dirty data may come at ({@link BypassPolicy#throttleSpeedup});
     *     below 0 means not throttled
     * @param rateSectorsPerSecond what the backing device takes, positive
     * @param delayNsMax the bound on any one delay
     */
    long delayNs(long lengthSectors, double speedup, double rateSectorsPerSecond, long delayNsMax) {
        long nowNs = loop.nowNs();
        if (speedup < 0 || delayNsMax == 0) {
            nextTokenNs = nowNs;
            return 0;
        }
        double allowedSectorsPerSecond = rateSectorsPerSecond * speedup;
        long costNs = (long) Math.ceil(lengthSectors * 1e9 / allowedSectorsPerSecond);
        nextTokenNs = Math.min(Math.max(nextTokenNs, nowNs) + costNs, nowNs + delayNsMax);
        return nextTokenNs - nowNs;
    }

    /**
     * Runs {@code task} after {@code delayNs}, or at once if that is 0 and no held write overlaps the range;
     * otherwise it is held, released in arrival order.
     */
    void admit(long startSector, long lengthSectors, long delayNs, Runnable task) {
        long endSector = startSector + lengthSectors;
        if (delayNs == 0 && !overlapsHeld(startSector, endSector)) {
            task.run();
            return;
        }
        long releaseNs = loop.nowNs() + delayNs;
        if (!held.isEmpty()) {
            releaseNs = Math.max(releaseNs, held.peekLast().releaseNs());
        }
        held.addLast(new Held(startSector, endSector, releaseNs, task));
        if (held.size() == 1) {
            arm();
        }
    }

    private boolean overlapsHeld(long startSector, long endSector) {
        if (held.isEmpty()) {
            return false; // the common case; an iterator would be allocated for nothing
        }
        for (Held h : held) {
            if (h.startSector() < endSector && startSector < h.endSector()) {
                return true;
            }
        }
        return false;
    }

    private void arm() {
        timer = loop.schedule(Math.max(0, held.peekFirst().releaseNs() - loop.nowNs()), this::release);
    }

    private void release() {
        timer = null;
        long nowNs = loop.nowNs();
        while (!held.isEmpty() && held.peekFirst().releaseNs() <= nowNs) {
            held.removeFirst().task().run();
        }
        if (!held.isEmpty() && timer == null) {
            arm();
        }
    }
}
