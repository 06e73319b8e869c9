package io.blockcache.admin;

import io.blockcache.engine.CacheSet;
import io.blockcache.writeback.DrainProgress;
import io.blockcache.writeback.Writeback;
import java.util.Map;
import java.util.TreeMap;

/**
 * The drains the admin API started ({@code POST /api/volumes/{name}/drain}): starts {@link CacheSet#drain} and
 * answers at once, then keeps each volume's last progress report and outcome so that {@code /api/stats} can show
 * them and {@code blockcache drain} can poll until its drain is done.
 *
 * <p>A second request while a drain of the same volume runs joins it (same id) rather than failing: two operators
 * asking for the same thing should both get it. A drain runs even while writeback is paused (knob
 * {@code writeback.<volume>.running}); the pause holds again once it is done.
 *
 * <p>Thread rule: the cache set's loop thread (the caller hops there with {@link io.blockcache.loop.LoopCalls}).
 */
final class Drains {
    private final CacheSet set;
    /** One entry per volume that was ever drained through the API; sorted so output order is stable. */
    private final Map<String, Entry> byVolume = new TreeMap<>();

    Drains(CacheSet set) {
        this.set = set;
    }

    /** Starts (or joins) a drain of {@code volume}; 202 with its id, 404 unknown volume, 409 drained by another. */
    KnobApi.Answer start(String volume) {
        Writeback writeback = set.writeback(volume);
        if (writeback == null) {
            JsonWriter json = new JsonWriter().beginObject()
                    .field("error", "no volume named \"" + volume + "\"").name("volumes").beginArray();
            for (String name : set.exportNames()) {
                json.value(name);
            }
            return new KnobApi.Answer(404, json.endArray().endObject().toString());
        }
        long dirtyBytes = writeback.dirtyBytes();
        Entry entry = byVolume.computeIfAbsent(volume, name -> new Entry());
        boolean joined = entry.state.equals("running");
        if (!joined) {
            long id = entry.id + 1;
            entry.begin(id, dirtyBytes); // before the engine can report anything
            try {
                set.drain(volume, progress -> entry.progress(id, progress), result -> entry.finished(id,
                        result.ok() ? null : result.status() + ": " + result.message()));
            } catch (IllegalStateException alreadyRunning) {
                // Started by someone else (shutdown, a library caller): the engine allows one drain at a time.
                String message = "volume \"" + volume + "\" is already being drained by another caller: "
                        + alreadyRunning.getMessage();
                entry.finished(id, message);
                return new KnobApi.Answer(409, error(message));
            }
        }
        return new KnobApi.Answer(202, new JsonWriter().beginObject()
                .field("volume", volume)
                .field("drainId", entry.id)
                .field("joined", joined)
                .field("dirtyBytes", dirtyBytes)
                .endObject().toString());
    }

    /** The last drain of {@code volume}, or {@link DrainSnapshot#NONE}. */
    DrainSnapshot snapshot(String volume) {
        Entry entry = byVolume.get(volume);
        return entry == null ? DrainSnapshot.NONE : entry.snapshot();
    }

    private static String error(String message) {
        return new JsonWriter().beginObject().field("error", message).endObject().toString();
    }

    /** The latest drain of one volume; reports of an older drain (cannot happen while one runs) are ignored. */
    private static final class Entry {
        private long id;
        private String state = "none";
        private DrainProgress last;
        private long dirtyBytesAtStart;
        private String error;

        void begin(long newId, long dirtyBytes) {
            id = newId;
            state = "running";
            last = null;
            dirtyBytesAtStart = dirtyBytes;
            error = null;
        }

        void progress(long drainId, DrainProgress progress) {
            if (drainId == id) {
                last = progress;
            }
        }

        void finished(long drainId, String failure) {
            if (drainId == id) {
                state = failure == null ? "done" : "failed";
                error = failure;
            }
        }

        DrainSnapshot snapshot() {
            if (last == null) {
                return new DrainSnapshot(id, state, dirtyBytesAtStart, 0, 0.0, -1, error);
            }
            long etaMs = last.etaNs() < 0 ? -1 : last.etaNs() / 1_000_000;
            return new DrainSnapshot(id, state, last.dirtyBytesLeft(), last.writtenBackBytes(), last.bytesPerSecond(),
                    etaMs, error);
        }
    }
}
