package io.blockcache.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * Every live tunable of a cache set, by name, in name order. Components register their knobs when they are
 * built; the admin API and the CLI list, read and set them.
 *
 * <p>Thread rule: the cache set's loop thread.
 */
public final class KnobRegistry {
    private final TreeMap<String, Knob> knobs = new TreeMap<>();

    /** Adds a knob; names are unique. */
    public void register(Knob knob) {
        if (knobs.putIfAbsent(knob.name(), knob) != null) {
            throw new IllegalArgumentException("knob registered twice: " + knob.name());
        }
    }

    /** The knob called {@code name}, or null. */
    public Knob find(String name) {
        return knobs.get(name);
    }

    /** Every knob, in name order. */
    public List<Knob> list() {
        return new ArrayList<>(knobs.values());
    }
}
