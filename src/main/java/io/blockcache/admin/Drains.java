package io.blockcache.admin;

import io.blockcache.engine.CacheSet;
import io.blockcache.json.JsonWriter;
import io.blockcache.log.EventName;
import io.blockcache.log.EventSink;
import io.blockcache.log.LogEvent;
import io.blockcache.writeback.DrainJob;
import io.blockcache.writeback.DrainLimits;
import io.blockcache.writeback.DrainProgress;
import io.blockcache.writeback.DrainConflict;
import io.blockcache.writeback.DrainRefused;
import io.blockcache.writeback.DrainState;
import io.blockcache.writeback.Writeback;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongSupplier;

/**
 * The drain jobs of the admin API (docs/WRITEBACK.md, "Drain jobs"): starts them ({@code POST
 * /api/volumes/{name}/drain}, with an optional rate cap and deadline), pauses, resumes and cancels them, answers
 * their status, and hands every change to the {@link DrainJobWriter} so that a restarted server can take them up
 * ({@link #restore}).
 *
 * <p>A request without limits while a job of the volume is running or paused joins it (same id) rather than
 * failing: two operators asking for the same thing should both get it. A request with limits then gets 409. A drain
 * runs even while writeback is paused (knob {@code writeback.<volume>.running}); the pause holds again once it is
 * done.
 *
 * <p>Thread rule: the cache set's loop thread (the caller hops there with {@link io.blockcache.loop.LoopCalls}).
 */
final class Drains {
    private final CacheSet set;
    private final DrainJobWriter writer;
    private final LongSupplier wallClockMs;
    private final EventSink log;
    /** One entry per volume that was ever drained through the API; sorted so output order is stable. */
    private final Map<String, Entry> byVolume = new TreeMap<>();

    /**
     * @param wallClockMs the wall clock, for deadlines that must mean the same after a restart
     * @param log told when a job ends (on the loop thread: the sink does not block)
     */
    Drains(CacheSet set, DrainJobWriter writer, LongSupplier wallClockMs, EventSink log) {
        this.set = set;
        this.writer = writer;
        this.wallClockMs = wallClockMs;
        this.log = log;
    }

    /**
     * Starts (or joins) a drain of {@code volume}: 202 with its id; 400 bad limits; 404 unknown volume; 409 a job
     * with other limits is active; 422 a deadline that cannot be met, with the rate it needs.
     */
    KnobApi.Answer start(String volume, DrainRequest request) {
        Writeback writeback = set.writeback(volume);
        if (writeback == null) {
            return unknown(volume);
        }
        long dirtyBytes = writeback.dirtyBytes();
        long nowNs = set.loop().nowNs();
        DrainLimits limits = DrainLimits.ofBytes(request.rateMaxBytesPerSecond(), request.deadlineSeconds() == 0
                ? DrainLimits.NO_DEADLINE : nowNs + (long) (request.deadlineSeconds() * 1e9));
        Entry entry = byVolume.computeIfAbsent(volume, name -> new Entry());
        DrainJob before = writeback.drainJob();
        boolean joinable = before != null && before.state().active();
        DrainJob job;
        try {
            long id = entry.id + 1;
            job = writeback.drain(joinable && request.none() ? DrainLimits.NONE : limits,
                    progress -> { }, result -> ended(volume));
            boolean joined = job == before;
            if (!joined || entry.job != job) {
                entry.begin(id, job, joined ? before.limits().rateMaxBytesPerSecond() : request.rateMaxBytesPerSecond(),
                        joined ? 0 : deadlineEpochMs(request), false, nowNs);
            }
            saved();
            return new KnobApi.Answer(202, new JsonWriter().beginObject()
                    .field("volume", volume)
                    .field("drainId", entry.id)
                    .field("joined", joined)
                    .field("dirtyBytes", dirtyBytes)
                    .field("state", lower(job.state()))
                    .field("rateMaxBytesPerSecond", entry.rateMaxBytesPerSecond)
                    .field("deadlineEpochMs", entry.deadlineEpochMs)
                    .endObject().toString());
        } catch (DrainRefused refused) {
            return new KnobApi.Answer(422, new JsonWriter().beginObject()
                    .field("error", refused.getMessage())
                    .field("neededBytesPerSecond", refused.neededBytesPerSecond())
                    .field("availableBytesPerSecond", refused.availableBytesPerSecond())
                    .endObject().toString());
        } catch (DrainConflict conflict) {
            return new KnobApi.Answer(409, error("volume \"" + volume + "\": " + conflict.getMessage()));
        }
    }

    private long deadlineEpochMs(DrainRequest request) {
        return request.deadlineSeconds() == 0 ? 0 : wallClockMs.getAsLong() + (long) (request.deadlineSeconds() * 1e3);
    }

    /** {@code pause}, {@code resume} or {@code cancel}: 200 with the status; 404 unknown; 409 nothing to act on. */
    KnobApi.Answer control(String volume, String action) {
        Writeback writeback = set.writeback(volume);
        if (writeback == null) {
            return unknown(volume);
        }
        try {
            switch (action) {
                case "pause" -> writeback.pauseDrain();
                case "resume" -> writeback.resumeDrain();
                case "cancel" -> writeback.cancelDrain();
                default -> throw new IllegalArgumentException("unknown drain action: " + action);
            }
        } catch (DrainConflict conflict) {
            return new KnobApi.Answer(409, error("volume \"" + volume + "\": " + conflict.getMessage()));
        }
        Entry entry = byVolume.computeIfAbsent(volume, name -> new Entry());
        if (entry.job != writeback.drainJob()) { // a job someone else started: the API follows it from now on
            entry.begin(entry.id + 1, writeback.drainJob(), writeback.drainJob().limits().rateMaxBytesPerSecond(), 0,
                    false, set.loop().nowNs());
        }
        saved();
        return status(volume);
    }

    /** {@code GET /api/volumes/{name}/drain}: 200 with the status, 404 unknown volume. */
    KnobApi.Answer status(String volume) {
        if (set.writeback(volume) == null) {
            return unknown(volume);
        }
        JsonWriter json = new JsonWriter().beginObject().field("volume", volume);
        StatsJson.drainFields(json, snapshot(volume));
        return new KnobApi.Answer(200, json.endObject().toString());
    }

    /** The last drain of {@code volume}, or {@link DrainSnapshot#NONE}. */
    DrainSnapshot snapshot(String volume) {
        Entry entry = byVolume.get(volume);
        return entry == null ? DrainSnapshot.NONE : entry.snapshot(set.writeback(volume).dirtyBytes(),
                wallClockMs.getAsLong());
    }

    /**
     * Takes up the jobs saved before a restart: a running one runs again, a paused one is held paused, a finished
     * one is only shown. Returns one line per job for the server's log.
     */
    List<String> restore(List<DrainJobRecord> records) {
        List<String> lines = new ArrayList<>();
        for (DrainJobRecord record : records) {
            Writeback writeback = set.writeback(record.volume());
            if (writeback == null) {
                lines.add("drain job of \"" + record.volume() + "\" dropped: no such volume any more");
                continue;
            }
            Entry entry = byVolume.computeIfAbsent(record.volume(), name -> new Entry());
            boolean paused = record.state().equals("paused");
            if (paused || record.state().equals("running")) {
                long deadlineNs = record.deadlineEpochMs() == 0 ? DrainLimits.NO_DEADLINE
                        : set.loop().nowNs() + (record.deadlineEpochMs() - wallClockMs.getAsLong()) * 1_000_000L;
                DrainJob job = writeback.restoreDrain(DrainLimits.ofBytes(record.rateMaxBytesPerSecond(), deadlineNs),
                        paused, progress -> { }, result -> ended(record.volume()));
                entry.begin(entry.id + 1, job, record.rateMaxBytesPerSecond(), record.deadlineEpochMs(), true,
                        set.loop().nowNs());
                lines.add((paused ? "the drain of \"" + record.volume() + "\" stays paused (resume it with 'blockcache"
                        + " drain resume --volume " + record.volume() + "')" : "resuming the drain of \""
                        + record.volume() + "\"") + limitsText(record) + ", "
                        + writeback.dirtyBytes() + " dirty bytes");
            } else {
                entry.restoredFinal(record);
                lines.add("the last drain of \"" + record.volume() + "\" was " + record.state() + " before the restart"
                        + (record.error() == null ? "" : ": " + record.error()));
            }
        }
        saved();
        return lines;
    }

    private static String limitsText(DrainJobRecord record) {
        return (record.rateMaxBytesPerSecond() == 0 ? "" : ", rate cap " + record.rateMaxBytesPerSecond() + " B/s")
                + (record.deadlineEpochMs() == 0 ? "" : ", deadline " + java.time.Instant.ofEpochMilli(
                record.deadlineEpochMs()));
    }

    /**
     * A job of {@code volume} ended (every caller of a joined job hears it; it is logged once): {@code drain.done},
     * {@code drain.failed} with the reason or {@code drain.cancelled}, with the bytes written back and the seconds it
     * took on the loop's clock. Then the jobs are saved.
     */
    private void ended(String volume) {
        Entry entry = byVolume.get(volume);
        DrainJob job = entry == null ? null : entry.job;
        if (job != null && !job.state().active() && entry.endLogged != job) {
            entry.endLogged = job;
            DrainProgress last = job.lastProgress();
            long bytes = last == null ? 0 : last.writtenBackBytes();
            long seconds = Math.max(0, set.loop().nowNs() - entry.startedNs) / 1_000_000_000L;
            EventName name = switch (job.state()) {
                case DONE -> EventName.DRAIN_DONE;
                case CANCELLED -> EventName.DRAIN_CANCELLED;
                default -> EventName.DRAIN_FAILED;
            };
            String text = "drain of \"" + volume + "\" " + lower(job.state()) + ": " + bytes + " bytes written back in "
                    + seconds + " s" + (job.error() == null ? "" : "; " + job.error());
            LogEvent event = LogEvent.of(name, text).with("volume", volume).with("bytes", bytes)
                    .with("seconds", seconds);
            log.log(name == EventName.DRAIN_FAILED ? event.with("reason", String.valueOf(job.error())) : event);
        }
        saved();
    }

    /** Hands the current jobs to the writer. */
    private void saved() {
        List<DrainJobRecord> records = new ArrayList<>();
        for (Map.Entry<String, Entry> e : byVolume.entrySet()) {
            String state = e.getValue().state();
            if (!state.equals("none")) {
                records.add(new DrainJobRecord(e.getKey(), state, e.getValue().rateMaxBytesPerSecond,
                        e.getValue().deadlineEpochMs, e.getValue().error()));
            }
        }
        writer.submit(records);
    }

    private KnobApi.Answer unknown(String volume) {
        JsonWriter json = new JsonWriter().beginObject()
                .field("error", "no volume named \"" + volume + "\"").name("volumes").beginArray();
        for (String name : set.exportNames()) {
            json.value(name);
        }
        return new KnobApi.Answer(404, json.endArray().endObject().toString());
    }

    private static String error(String message) {
        return new JsonWriter().beginObject().field("error", message).endObject().toString();
    }

    private static String lower(DrainState state) {
        return state.name().toLowerCase(Locale.ROOT);
    }

    /** The latest drain of one volume: the engine's job it follows, or how a job before a restart ended. */
    private static final class Entry {
        private long id;
        private DrainJob job;
        private DrainJobRecord finalBeforeRestart;
        private long rateMaxBytesPerSecond;
        private long deadlineEpochMs;
        private boolean restored;
        /** The last job whose end was logged. */
        private DrainJob endLogged;
        /** When the job began, on the loop's clock. */
        private long startedNs;

        void begin(long newId, DrainJob newJob, long rateMax, long deadlineMs, boolean fromFile, long nowNs) {
            id = newId;
            startedNs = nowNs;
            job = newJob;
            finalBeforeRestart = null;
            rateMaxBytesPerSecond = rateMax;
            deadlineEpochMs = deadlineMs;
            restored = fromFile;
        }

        void restoredFinal(DrainJobRecord record) {
            begin(id + 1, null, record.rateMaxBytesPerSecond(), record.deadlineEpochMs(), true, 0);
            finalBeforeRestart = record;
        }

        String state() {
            return job != null ? lower(job.state()) : finalBeforeRestart != null ? finalBeforeRestart.state() : "none";
        }

        String error() {
            return job != null ? job.error() : finalBeforeRestart != null ? finalBeforeRestart.error() : null;
        }

        /** @param dirtyBytesNow the volume's dirty bytes, shown until the engine's first report */
        DrainSnapshot snapshot(long dirtyBytesNow, long nowMs) {
            DrainProgress last = job == null ? null : job.lastProgress();
            long deadlineInMs = deadlineEpochMs == 0 ? 0 : deadlineEpochMs - nowMs;
            if (last == null) {
                long ceiling = job != null && job.state() == DrainState.RUNNING ? rateMaxBytesPerSecond : 0;
                return new DrainSnapshot(id, state(), dirtyBytesNow, 0, 0.0, -1, error(), rateMaxBytesPerSecond,
                        ceiling,
                        deadlineEpochMs, deadlineInMs, 0.0, null, restored, job != null && job.finishing());
            }
            boolean active = job.state().active();
            long etaMs = last.etaNs() < 0 ? -1 : last.etaNs() / 1_000_000;
            return new DrainSnapshot(id, state(), last.dirtyBytesLeft(), last.writtenBackBytes(), last.bytesPerSecond(),
                    active ? etaMs : 0, error(), rateMaxBytesPerSecond, active ? last.rateCeilingBytesPerSecond() : 0,
                    deadlineEpochMs, deadlineInMs, active ? last.neededBytesPerSecond() : 0.0,
                    active ? last.deadlineWarning() : null, restored, active && job.finishing());
        }
    }
}
