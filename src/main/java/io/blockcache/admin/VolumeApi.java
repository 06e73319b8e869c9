package io.blockcache.admin;

import com.sun.net.httpserver.HttpExchange;
import io.blockcache.engine.CacheSet;
import io.blockcache.engine.Pinning;
import io.blockcache.format.AttachedBacking;
import io.blockcache.json.JsonWriter;
import io.blockcache.volume.Volume;
import io.blockcache.writeback.Writeback;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * {@code /api/volumes}: the volumes as live objects (docs/OPERATIONS.md "Volumes").
 * <ul>
 *   <li>{@code GET /api/volumes}: every volume with its id, size, mode and dirty bytes;</li>
 *   <li>{@code POST /api/volumes?name=N&uri=U[&size=BYTES][&log=BYTES][&in-place=true][&mode=M][&force=true]}: adds one
 *       (201);</li>
 *   <li>{@code DELETE /api/volumes/NAME[?discard-dirty=true]}: removes one; 409 while it holds dirty data;</li>
 *   <li>{@code POST /api/volumes/NAME/resize?size=BYTES}: grows one;</li>
 *   <li>{@code GET /api/volumes/NAME/pins}: its pinned ranges, its pinned bytes, all volumes' and the cap; {@code POST}
 *       / {@code DELETE} the same path {@code ?offset=BYTES&length=BYTES}: pins / unpins a range (docs/CACHING.md
 *       "Pinning"), answered with the list after it.</li>
 * </ul>
 * A refusal is 409 with one line; a malformed request 400.
 *
 * <p>Thread rule: the admin API's request threads.
 */
final class VolumeApi {
    static final String PATH = "/api/volumes";
    static final String RESIZE_SUFFIX = "/resize";
    static final String PINS_SUFFIX = "/pins";

    private final CacheSet set;
    private final Supplier<VolumeControl> control;
    private final LoopReader loop;

    /** Reads engine state on the loop (the admin server's bounded wait). */
    interface LoopReader {
        <T> T onLoop(Supplier<T> task);
    }

    VolumeApi(CacheSet set, Supplier<VolumeControl> control, LoopReader loop) {
        this.set = set;
        this.control = control;
        this.loop = loop;
    }

    /** True if {@code path} is this API's. */
    static boolean handles(String path) {
        if (path.equals(PATH) || path.equals(PATH + "/")) {
            return true;
        }
        String rest = path.startsWith(PATH + "/") ? path.substring(PATH.length() + 1) : null;
        return rest != null && !rest.isEmpty() && (!rest.contains("/") || endsIn(rest, RESIZE_SUFFIX)
                || endsIn(rest, PINS_SUFFIX));
    }

    /** Whether {@code rest} is {@code NAME} + {@code suffix}, with no other slash. */
    private static boolean endsIn(String rest, String suffix) {
        return rest.endsWith(suffix) && rest.indexOf('/') == rest.length() - suffix.length();
    }

    void handle(HttpExchange exchange, String path, String method) throws IOException {
        Map<String, String> query = query(exchange.getRequestURI().getRawQuery());
        if (path.equals(PATH) || path.equals(PATH + "/")) {
            if (method.equals("GET") || method.equals("HEAD")) {
                AdminServer.sendJson(exchange, 200, loop.onLoop(this::listJson));
            } else if (method.equals("POST")) {
                change(exchange, 201, c -> c.add(required(query, "name"), required(query, "uri"),
                        query.containsKey("size") ? bytes(query.get("size")) : 0,
                        query.containsKey("log") ? bytes(query.get("log")) : 0,
                        "true".equals(query.get("in-place")), query.get("mode"), "true".equals(query.get("force"))));
            } else {
                notAllowed(exchange, method, "GET, POST");
            }
            return;
        }
        String rest = path.substring(PATH.length() + 1);
        if (endsIn(rest, PINS_SUFFIX)) {
            pins(exchange, method, rest.substring(0, rest.length() - PINS_SUFFIX.length()), query);
        } else if (rest.endsWith(RESIZE_SUFFIX)) {
            String name = rest.substring(0, rest.length() - RESIZE_SUFFIX.length());
            if (!method.equals("POST")) {
                notAllowed(exchange, method, "POST");
                return;
            }
            change(exchange, 200, c -> c.resize(name, bytes(required(query, "size"))));
        } else if (method.equals("DELETE")) {
            change(exchange, 200, c -> c.remove(rest, "true".equals(query.get("discard-dirty"))));
        } else {
            notAllowed(exchange, method, "DELETE");
        }
    }

    /** {@code /api/volumes/NAME/pins}: GET lists, POST pins, DELETE unpins. */
    private void pins(HttpExchange exchange, String method, String name, Map<String, String> query)
            throws IOException {
        if (method.equals("GET") || method.equals("HEAD")) {
            KnobApi.Answer answer = loop.onLoop(() -> pinsJson(name));
            AdminServer.sendJson(exchange, answer.status(), answer.json());
        } else if (method.equals("POST") || method.equals("DELETE")) {
            boolean unpin = method.equals("DELETE");
            if (!change(exchange, c -> c.pin(name, offset(required(query, "offset")), bytes(required(query, "length")),
                    unpin))) {
                return;
            }
            KnobApi.Answer answer = loop.onLoop(() -> pinsJson(name));
            AdminServer.sendJson(exchange, answer.status(), answer.json());
        } else {
            notAllowed(exchange, method, "GET, POST, DELETE");
        }
    }

    /** Volume {@code name}'s pins (on the loop). */
    private KnobApi.Answer pinsJson(String name) {
        if (set.volume(name) == null) {
            return new KnobApi.Answer(404, AdminServer.error("no volume named \"" + name + "\""));
        }
        Pinning pinning = new Pinning(set);
        JsonWriter json = new JsonWriter().beginObject().field("volume", name);
        long pinnedBytes = 0;
        json.name("ranges").beginArray();
        for (Pinning.Range range : pinning.ranges()) {
            if (range.volume().equals(name)) {
                json.beginObject().field("offsetBytes", range.offsetBytes()).field("lengthBytes", range.lengthBytes())
                        .endObject();
                pinnedBytes += range.lengthBytes();
            }
        }
        json.endArray().field("pinnedBytes", pinnedBytes).field("allVolumesPinnedBytes", pinning.pinnedBytes())
                .field("capBytes", pinning.capBytes());
        return new KnobApi.Answer(200, json.endObject().toString());
    }

    /** One change through the control, answered with the volume list after it. */
    private void change(HttpExchange exchange, int okStatus, Change change) throws IOException {
        if (change(exchange, change)) {
            AdminServer.sendJson(exchange, okStatus, loop.onLoop(this::listJson));
        }
    }

    /** One change through the control; false if it was refused (and answered). */
    private boolean change(HttpExchange exchange, Change change) throws IOException {
        VolumeControl current = control.get();
        if (current == null) {
            AdminServer.sendJson(exchange, 404, AdminServer.error("this server does not add or remove volumes"));
            return false;
        }
        try {
            change.apply(current);
            return true;
        } catch (IllegalArgumentException malformed) {
            AdminServer.sendJson(exchange, 400, AdminServer.error(malformed.getMessage()));
            return false;
        } catch (VolumeControl.Refused refused) {
            AdminServer.sendJson(exchange, 409, AdminServer.error(refused.getMessage()));
            return false;
        }
    }

    /** A change of the volumes. */
    private interface Change {
        void apply(VolumeControl control) throws VolumeControl.Refused;
    }

    /** The volume list (on the loop). */
    private String listJson() {
        JsonWriter json = new JsonWriter().beginObject().name("volumes").beginArray();
        for (AttachedBacking slot : set.superblock().backings()) {
            Volume volume = set.volume(slot.exportName());
            Writeback writeback = set.writeback(slot.exportName());
            if (volume == null) {
                continue;
            }
            json.beginObject().field("name", slot.exportName()).field("volumeId", slot.volumeId())
                    .field("sizeBytes", volume.sizeBytes())
                    .field("mode", volume.mode().name().toLowerCase(Locale.ROOT))
                    .field("dirtyBytes", writeback.dirtyBytes()).field("inPlace", slot.inPlace())
                    .field("state", volume.isClosed() ? "closed" : "open")
                    .field("backingUuid", slot.backingUuid().toString()).endObject();
        }
        return json.endArray().endObject().toString();
    }

    private static void notAllowed(HttpExchange exchange, String method, String allowed) throws IOException {
        exchange.getResponseHeaders().set("Allow", allowed);
        AdminServer.sendJson(exchange, 405, AdminServer.error(method + " is not allowed here; use " + allowed));
    }

    private static String required(Map<String, String> query, String name) {
        String value = query.get(name);
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException("missing query parameter \"" + name + "\"");
        }
        return value;
    }

    /** A size in bytes, with an optional unit (K, M, G, T: powers of 1024). */
    /** A byte offset: 0, or a size as {@link #bytes}. */
    private static long offset(String text) {
        return text.strip().equals("0") ? 0 : bytes(text);
    }

    static long bytes(String text) {
        String t = text.strip().toUpperCase(Locale.ROOT);
        int shift = t.endsWith("K") ? 10 : t.endsWith("M") ? 20 : t.endsWith("G") ? 30 : t.endsWith("T") ? 40 : 0;
        String digits = shift == 0 ? t : t.substring(0, t.length() - 1);
        try {
            long value = Long.parseLong(digits);
            if (value <= 0 || value > (Long.MAX_VALUE >> shift)) {
                throw new IllegalArgumentException("size \"" + text + "\" is not a positive size in bytes");
            }
            return value << shift;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("size \"" + text + "\" is not a size (bytes, or with K, M, G, T)");
        }
    }

    private static Map<String, String> query(String raw) {
        Map<String, String> values = new LinkedHashMap<>();
        if (raw == null || raw.isEmpty()) {
            return values;
        }
        for (String pair : raw.split("&")) {
            int eq = pair.indexOf('=');
            String key = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            values.put(key, eq < 0 ? "true" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
        }
        return values;
    }
}
