package io.blockcache.volume;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Lets overlapping front-end writes reach the backing device one after another, in submission order.
 *
 * <p>Why: a disk may complete requests in any order (an HDD serves its queue shortest-positioning-first), so
 * two overlapping writes in flight together could land older-last. The cache promises that the newest
 * submission wins (see {@link InFlightWrites}); for writes that go around the cache, this gate is what keeps
 * that promise. Writes that do not overlap anything in flight pass at once.
 *
 * <p>Cost: linear in the writes in flight, which the front end bounds.
 *
 * <p>Thread rule: the loop thread.
 */
final class BackingWriteGate {
    private final List<Slot> slots = new ArrayList<>();

    /** One write in flight or waiting, in arrival order. */
    private final class Slot implements Runnable {
        final long startSector;
        final long endSector;
        final Consumer<Runnable> body;
        boolean started;

        Slot(long startSector, long endSector, Consumer<Runnable> body) {
            this.startSector = startSector;
            this.endSector = endSector;
            this.body = body;
        }

        boolean overlaps(Slot other) {
            return startSector < other.endSector && other.startSector < endSector;
        }

        /** The release: ends this write and starts the waiting writes it was holding back. */
        @Override
        public void run() {
            if (!slots.remove(this)) {
                throw new IllegalStateException("backing write released twice: [" + startSector + ", " + endSector
                        + ")");
            }
            startReady();
        }
    }

    /**
     * Runs {@code body} once no earlier overlapping write is in flight or waiting; {@code body} gets the release
     * to call exactly once when its backing I/O (and whatever must happen before a newer write may land) is done.
     */
    void run(long startSector, long lengthSectors, Consumer<Runnable> body) {
        Slot slot = new Slot(startSector, startSector + lengthSectors, body);
        slots.add(slot);
        startReady();
    }

    /** Writes in flight or waiting. */
    int size() {
        return slots.size();
    }

    private void startReady() {
        for (int i = 0; i < slots.size(); i++) {
            Slot candidate = slots.get(i);
            if (candidate.started || blockedByEarlier(i)) {
                continue;
            }
            candidate.started = true;
            candidate.body.accept(candidate);
            i = -1; // the body may have released synchronously and changed the list: rescan from the start
        }
    }

    private boolean blockedByEarlier(int index) {
        Slot candidate = slots.get(index);
        for (int i = 0; i < index; i++) {
            if (slots.get(i).overlaps(candidate)) {
                return true;
            }
        }
        return false;
    }
}
