package io.blockcache.volume;

import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Holds the front-end mutations that would break epoch ordering until writeback has caught up
 * (docs/WRITEBACK.md, "Epoch ordering"): a write over dirty data of an older epoch (the older data must reach the
 * backing device first, or the backing device would skip a FLUSH boundary) and anything that goes to the backing
 * device directly while older epochs are still dirty (write-through, write-around, bypassed writes, trim,
 * write-zeroes, the ordered path).
 *
 * <p>Held requests keep their submission order where they overlap: a request that overlaps a held one is held
 * behind it even if it could go now (else a newer write could land before an older one: "newest submission wins").
 * A request that overlaps none may pass a held one. Each attempt re-decides its route when it is tried, so a mode
 * switch or a new epoch meanwhile is taken into account.
 *
 * <p>Bound: {@link #HELD_REQUESTS_MAX}; a request beyond it is refused with an error. Thread rule: the loop thread.
 */
final class EpochGate {
    /**
     * Requests held at most: far above what the NBD server lets clients keep in flight per volume (its connection
     * bounds), so only a runaway library caller meets it; a retry costs O(held²) overlap checks, so keep it small.
     */
    static final int HELD_REQUESTS_MAX = 1024;

    private final VolumeContext context;
    private final List<Held> held = new ArrayList<>();
    private boolean retrying;
    private long heldTotal;
    /** Why writeback will not run again before a restart (the backing file changed under it), or null. */
    private String writebackGone;

    private record Held(long startSector, long lengthSectors, BooleanSupplier attempt, IoCallback done) {
        boolean overlaps(long start, long length) {
            return startSector < start + length && start < startSector + lengthSectors;
        }
    }

    EpochGate(VolumeContext context) {
        this.context = context;
    }

    /**
     * Runs {@code attempt} now, or later when writeback has caught up. {@code attempt} returns false if it may not
     * go yet, and then must have changed nothing; {@code done} hears an error if the request is refused instead.
     */
    void submit(long startSector, long lengthSectors, BooleanSupplier attempt, IoCallback done) {
        if (!overlapsHeld(startSector, lengthSectors, held.size()) && attempt.getAsBoolean()) {
            return;
        }
        String voidFailure = context.index.epochVoidFailure();
        if (voidFailure != null) {
            // The epochs' void record can never be made durable: it would wait forever (EpochRecord).
            IoResult refused = IoResult.error(IoStatus.IO_ERROR, voidFailure);
            context.loop.execute(() -> done.complete(refused));
            return;
        }
        if (writebackGone != null) {
            // Writeback is held until a restart: a request that waits for it would wait forever.
            IoResult refused = IoResult.error(IoStatus.IO_ERROR, "waiting for older epochs to be written back, but "
                    + writebackGone);
            context.loop.execute(() -> done.complete(refused));
            return;
        }
        if (held.size() >= HELD_REQUESTS_MAX) {
            IoResult refused = IoResult.error(IoStatus.IO_ERROR, "too many requests (" + HELD_REQUESTS_MAX
                    + ") wait for older epochs to be written back");
            context.loop.execute(() -> done.complete(refused));
            return;
        }
        held.add(new Held(startSector, lengthSectors, attempt, done));
        heldTotal++;
    }

    /** Tries the held requests again, oldest first (writeback cleaned something, or the ordering changed). */
    void retry() {
        if (retrying) {
            return; // an attempt that completes synchronously must not re-enter the walk
        }
        retrying = true;
        for (int i = 0; i < held.size(); ) {
            Held request = held.get(i);
            if (!overlapsHeld(request.startSector, request.lengthSectors, i) && request.attempt.getAsBoolean()) {
                held.remove(i);
            } else {
                i++;
            }
        }
        retrying = false;
    }

    /** Refuses every held request with {@code reason} (writeback failed: it cannot say when it will catch up). */
    void failAll(String reason) {
        List<Held> refused = new ArrayList<>(held);
        held.clear();
        for (Held request : refused) {
            IoResult error = IoResult.error(IoStatus.IO_ERROR, "waiting for older epochs to be written back, but "
                    + reason);
            context.loop.execute(() -> request.done.complete(error));
        }
    }

    /** Refuses every held request, and every later one that would have to wait, with {@code reason}. */
    void failAllFromNow(String reason) {
        writebackGone = reason;
        failAll(reason);
    }

    /**
     * True if requests need not pass the gate: ordering is off, the volume holds nothing for a durable step of a switch
     * ({@link VolumeContext#orderHeld}), and nothing is held (so none can overtake).
     */
    boolean bypassed() {
        return !context.epochOrdering && held.isEmpty() && !context.orderHeld();
    }

    /** Requests held now. */
    int size() {
        return held.size();
    }

    /** Requests ever held (a statistic: how often ordering made a request wait). */
    long heldTotal() {
        return heldTotal;
    }

    private boolean overlapsHeld(long startSector, long lengthSectors, int before) {
        Iterator<Held> it = held.iterator();
        for (int i = 0; i < before && it.hasNext(); i++) {
            if (it.next().overlaps(startSector, lengthSectors)) {
                return true;
            }
        }
        return false;
    }
}
