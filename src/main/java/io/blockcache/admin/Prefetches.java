package io.blockcache.admin;

import io.blockcache.engine.CacheSet;
import io.blockcache.engine.Quantities;
import io.blockcache.json.JsonWriter;
import io.blockcache.volume.Prefetch;
import io.blockcache.volume.Volume;
import java.net.URLDecoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The prefetch (warm-up) jobs of the admin API: {@code POST /api/volumes/{name}/prefetch?offset=&length=&rate=}
 * starts one ({@link Volume#prefetch}: the range's misses read from the backing device into the cache as clean data,
 * under an optional rate cap), {@code GET} answers its progress, {@code POST .../prefetch/cancel} stops it. One job
 * per volume at a time; the last one's status stays until the next starts. Jobs are not saved: a restart forgets
 * them (what they filled stays cached, as clean data does across a clean stop).
 *
 * <p>Thread rule: the cache set's loop thread (the caller hops there with {@link io.blockcache.loop.LoopCalls}).
 */
final class Prefetches {
    /** Bytes read per step, the buffer each job holds: as NBD_CMD_CACHE's chunk. */
    static final int CHUNK_BYTES = 1 << 20;
    private static final int SECTOR_BYTES = 512;

    private final CacheSet set;
    /** The last job of each volume that had one; sorted so output order is stable. */
    private final Map<String, Job> byVolume = new TreeMap<>();

    Prefetches(CacheSet set) {
        this.set = set;
    }

    /** A job with its number (1, 2, ... per volume since the server started). */
    private record Job(long id, Prefetch prefetch) {
    }

    /** The parameters of a start request: sizes with units ({@code 1G}), the rate as {@code 50M/s}; null if absent. */
    record Request(Long offsetBytes, Long lengthBytes, long rateMaxBytesPerSecond) {
        /** Parses the raw query string (may be null). @throws IllegalArgumentException saying what is wrong */
        static Request parse(String rawQuery) {
            Long offset = null;
            Long length = null;
            long rate = 0;
            if (rawQuery != null && !rawQuery.isEmpty()) {
                for (String pair : rawQuery.split("&")) {
                    int equals = pair.indexOf('=');
                    String key = decode(equals < 0 ? pair : pair.substring(0, equals));
                    String text = decode(equals < 0 ? "" : pair.substring(equals + 1));
                    switch (key) {
                        case "offset" -> offset = Quantities.parseBytes(text);
                        case "length" -> length = Quantities.parseBytes(text);
                        case "rate" -> rate = Quantities.parseBytesPerSecond(text);
                        default -> throw new IllegalArgumentException("unknown prefetch parameter \"" + key
                                + "\"; known: offset, length, rate");
                    }
                }
            }
            return new Request(offset, length, rate);
        }

        private static String decode(String text) {
            return URLDecoder.decode(text, StandardCharsets.UTF_8);
        }
    }

    /**
     * Starts a prefetch of {@code volume} through {@code buffer} ({@link #CHUNK_BYTES}, allocated by the caller off
     * the loop): 202 with its status; 400 a range outside the volume or not in whole sectors; 404 unknown volume;
     * 409 one is running.
     */
    KnobApi.Answer start(String volume, Request request, ByteBuffer buffer) {
        Volume target = set.volume(volume);
        if (target == null) {
            return unknown(volume);
        }
        Job last = byVolume.get(volume);
        if (last != null && !last.prefetch().state().ended()) {
            return new KnobApi.Answer(409, error("volume \"" + volume + "\": prefetch #" + last.id()
                    + " is running; cancel it first (POST .../prefetch/cancel)"));
        }
        long size = target.sizeBytes();
        long offset = request.offsetBytes() == null ? 0 : request.offsetBytes();
        long length = request.lengthBytes() == null ? Math.max(0, size - offset) : request.lengthBytes();
        if (offset % SECTOR_BYTES != 0 || length % SECTOR_BYTES != 0 || offset > size || length > size - offset) {
            return new KnobApi.Answer(400, error("volume \"" + volume + "\": range [" + offset + ", +" + length
                    + ") must be whole 512-byte sectors inside the volume's " + size + " bytes"));
        }
        if (request.rateMaxBytesPerSecond() > 0 && request.rateMaxBytesPerSecond() < SECTOR_BYTES) {
            return new KnobApi.Answer(400, error("rate must be at least one sector (512) per second: "
                    + request.rateMaxBytesPerSecond()));
        }
        Prefetch prefetch = target.prefetch(offset, length, request.rateMaxBytesPerSecond(), buffer, result -> { });
        Job job = new Job(last == null ? 1 : last.id() + 1, prefetch);
        byVolume.put(volume, job);
        return new KnobApi.Answer(202, status(volume, job));
    }

    /** {@code GET /api/volumes/{name}/prefetch}: 200 with the last job's status ({@code "state": "none"} if none). */
    KnobApi.Answer status(String volume) {
        if (set.volume(volume) == null) {
            return unknown(volume);
        }
        return new KnobApi.Answer(200, status(volume, byVolume.get(volume)));
    }

    /** {@code POST .../prefetch/cancel}: 200 with the status (the job stops after its chunk); 409 none running. */
    KnobApi.Answer cancel(String volume) {
        if (set.volume(volume) == null) {
            return unknown(volume);
        }
        Job job = byVolume.get(volume);
        if (job == null || job.prefetch().state().ended()) {
            return new KnobApi.Answer(409, error("volume \"" + volume + "\": no prefetch is running"));
        }
        job.prefetch().cancel();
        return new KnobApi.Answer(200, status(volume, job));
    }

    private static String status(String volume, Job job) {
        JsonWriter json = new JsonWriter().beginObject().field("volume", volume);
        if (job == null) {
            return json.field("state", "none").endObject().toString();
        }
        Prefetch p = job.prefetch();
        return json.field("id", job.id())
                .field("state", p.state().name().toLowerCase(Locale.ROOT).replace('_', '-'))
                .field("offsetBytes", p.offsetBytes())
                .field("lengthBytes", p.lengthBytes())
                .field("doneBytes", p.doneBytes())
                .field("filledBytes", p.filledBytes())
                .field("cachedBytes", p.cachedBytes())
                .field("racedBytes", p.racedBytes())
                .field("rateMaxBytesPerSecond", p.rateMaxBytesPerSecond())
                .field("message", p.message())
                .endObject().toString();
    }

    private static KnobApi.Answer unknown(String volume) {
        return new KnobApi.Answer(404, error("no volume \"" + volume + "\""));
    }

    private static String error(String message) {
        return new JsonWriter().beginObject().field("error", message).endObject().toString();
    }
}
