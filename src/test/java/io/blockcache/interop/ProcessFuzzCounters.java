package io.blockcache.interop;

import io.blockcache.sim.ModelOp;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a process fuzz run did, counted as it goes, so that a run can show it was not vacuous; and the signal the
 * controller waits on for the moment of a kill (a count of completed requests). Thread rule: any thread.
 */
final class ProcessFuzzCounters {
    private final AtomicLong operations = new AtomicLong();
    private final AtomicLong writes = new AtomicLong();
    private final AtomicLong fuaWrites = new AtomicLong();
    private final AtomicLong writtenBytes = new AtomicLong();
    private final AtomicLong flushes = new AtomicLong();
    private final AtomicLong zeroes = new AtomicLong();
    private final AtomicLong trims = new AtomicLong();
    private final AtomicLong kills = new AtomicLong();
    private final AtomicLong killsWithRequestsInFlight = new AtomicLong();
    private final AtomicLong modeSwitches = new AtomicLong();
    private final AtomicLong drains = new AtomicLong();
    private final AtomicLong killsDuringStart = new AtomicLong();
    private long adminRequestNsMax;
    private String adminRequestSlowest = "none";
    private final AtomicLong serveStarts = new AtomicLong();
    private final AtomicLong serveStartNs = new AtomicLong();

    /** One request completed (any kind); wakes a controller waiting for a count. */
    void operationDone() {
        operations.incrementAndGet();
        synchronized (this) {
            notifyAll();
        }
    }

    /** A mutation was acknowledged. */
    void mutationDone(ModelOp op) {
        switch (op.kind()) {
            case WRITE -> {
                writes.incrementAndGet();
                writtenBytes.addAndGet(op.lengthBytes());
                if (op.fua()) {
                    fuaWrites.incrementAndGet();
                }
            }
            case WRITE_ZEROES -> zeroes.incrementAndGet();
            default -> trims.incrementAndGet();
        }
    }

    /** A FLUSH was acknowledged. */
    void flushDone() {
        flushes.incrementAndGet();
    }

    /** The server was killed; {@code inFlight} if some worker was waiting for a reply then. */
    void killed(boolean inFlight) {
        kills.incrementAndGet();
        if (inFlight) {
            killsWithRequestsInFlight.incrementAndGet();
        }
    }

    /** The volume's mode was switched through the admin API. */
    void modeSwitched() {
        modeSwitches.incrementAndGet();
    }

    /** A drain was started through the admin API. */
    void drainStarted() {
        drains.incrementAndGet();
    }

    /** An admin request ({@code what}) was answered after {@code tookNs}; the slowest is kept. */
    synchronized void adminRequestTook(String what, long tookNs) {
        if (tookNs > adminRequestNsMax) {
            adminRequestNsMax = tookNs;
            adminRequestSlowest = what;
        }
    }

    /** A serve process was killed before it was up (during start-up, open or recovery). */
    void killedDuringStart() {
        killsDuringStart.incrementAndGet();
    }

    /** The mean time from launching serve to its banner, in ms (1,000 before the first start). */
    long serveStartMsAverage() {
        long starts = serveStarts.get();
        return starts == 0 ? 1_000 : serveStartNs.get() / starts / 1_000_000;
    }

    long killsDuringStart() {
        return killsDuringStart.get();
    }

    /** A serve process started (and recovered) in {@code tookNs}. */
    void serveStarted(long tookNs) {
        serveStarts.incrementAndGet();
        serveStartNs.addAndGet(tookNs);
    }

    /**
     * Waits until at least {@code target} requests completed in all, at most {@code timeoutMs}.
     *
     * @return true if the count was reached
     */
    boolean awaitOperations(long target, long timeoutMs) throws InterruptedException {
        long endNs = System.nanoTime() + timeoutMs * 1_000_000L;
        synchronized (this) {
            while (operations.get() < target) {
                long leftMs = (endNs - System.nanoTime()) / 1_000_000L;
                if (leftMs <= 0) {
                    return false;
                }
                wait(leftMs);
            }
        }
        return true;
    }

    long operations() {
        return operations.get();
    }

    long kills() {
        return kills.get();
    }

    long killsWithRequestsInFlight() {
        return killsWithRequestsInFlight.get();
    }

    long writes() {
        return writes.get();
    }

    long flushes() {
        return flushes.get();
    }

    /** One line for logs and the soak's summary. */
    synchronized String summary() {
        return operations.get() + " operations (" + writes.get() + " writes of which " + fuaWrites.get() + " FUA, "
                + (writtenBytes.get() >> 20) + " MiB; " + flushes.get() + " flushes, " + zeroes.get()
                + " write-zeroes, " + trims.get() + " trims), " + kills.get() + " kills (" + killsWithRequestsInFlight
                .get() + " with requests in flight), " + modeSwitches.get() + " mode switches, " + drains.get()
                + " drains, " + serveStarts.get() + " serve starts of " + serveStartMsAverage() + " ms on average, "
                + killsDuringStart.get() + " more kills during a start, slowest admin request "
                + adminRequestNsMax / 1_000_000 + " ms (" + adminRequestSlowest + ")";
    }
}
