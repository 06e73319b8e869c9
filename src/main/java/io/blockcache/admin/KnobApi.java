package io.blockcache.admin;

import io.blockcache.engine.Knob;
import io.blockcache.engine.KnobRegistry;
import io.blockcache.json.JsonWriter;

/**
 * The knob endpoints' answers: list, read and set live tunables, as JSON with an HTTP status. Each method
 * runs wholly on the loop thread (the caller hops there), so a read never sees a half-applied change.
 *
 * <p>A deprecated knob name answers as its replacement does, plus a one-line {@code warning}.
 *
 * <p>Statuses: 200 done; 400 a value the knob refuses, with the knob's own message saying what is allowed;
 * 404 no knob by that name, with the names there are.
 *
 * <p>Thread rule: the cache set's loop thread.
 */
final class KnobApi {
    /** An HTTP status and the JSON body to send with it. */
    record Answer(int status, String json) {
    }

    private final KnobRegistry knobs;

    KnobApi(KnobRegistry knobs) {
        this.knobs = knobs;
    }

    /** {@code GET /api/knobs}: every knob with its value and description, in name order. */
    Answer list() {
        JsonWriter json = new JsonWriter().beginObject().name("knobs").beginArray();
        for (Knob knob : knobs.list()) {
            describe(json, knob);
        }
        return new Answer(200, json.endArray().endObject().toString());
    }

    /** {@code GET /api/knobs/{name}}. */
    Answer get(String name) {
        Knob knob = knobs.find(name);
        if (knob == null) {
            return unknown(name);
        }
        return new Answer(200, describe(new JsonWriter(), knob).toString());
    }

    /** {@code PUT /api/knobs/{name}} with the new value as text (surrounding whitespace ignored). */
    Answer set(String name, String value) {
        Knob knob = knobs.find(name);
        if (knob == null) {
            return unknown(name);
        }
        String trimmed = value.strip();
        try {
            knob.set(trimmed);
        } catch (IllegalArgumentException refused) {
            // The knob's contract: a refusal says what is allowed. Nothing changed.
            return new Answer(400, new JsonWriter().beginObject()
                    .field("error", String.valueOf(refused.getMessage()))
                    .field("knob", name)
                    .field("value", trimmed)
                    .field("allowed", knob.description())
                    .endObject().toString());
        }
        return new Answer(200, describe(new JsonWriter(), knob).toString());
    }

    private Answer unknown(String name) {
        JsonWriter json = new JsonWriter().beginObject()
                .field("error", "no knob named \"" + name + "\"")
                .name("knobs").beginArray();
        for (Knob knob : knobs.list()) {
            json.value(knob.name());
        }
        return new Answer(404, json.endArray().endObject().toString());
    }

    private static JsonWriter describe(JsonWriter json, Knob knob) {
        json.beginObject()
                .field("name", knob.name())
                .field("value", knob.get())
                .field("description", knob.description());
        if (knob.deprecation() != null) {
            // A deprecated name still works; the one line tells the operator (or the script) what to use instead.
            json.field("warning", knob.deprecation());
        }
        return json.endObject();
    }
}
