package io.blockcache.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * Every live tunable of a cache set, by name, in name order: the knobs of {@link KnobTable}, bound to each volume
 * and to the cache set when they are built. The admin API and the CLI list, read and set them. Deprecated names
 * are found (and still work) but not listed.
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

    /** Removes every knob of volume {@code volumeName} (a volume detached while the cache runs). */
    void removeVolume(String volumeName) {
        knobs.values().removeIf(knob -> knob instanceof TableKnob table && volumeName.equals(table.volumeName()));
    }

    /** The knob called {@code name} (a deprecated name too), or null. */
    public Knob find(String name) {
        return knobs.get(name);
    }

    /** Every current knob, in name order (deprecated names left out). */
    public List<Knob> list() {
        List<Knob> current = new ArrayList<>();
        for (Knob knob : knobs.values()) {
            if (knob.deprecation() == null) {
                current.add(knob);
            }
        }
        return current;
    }
}
