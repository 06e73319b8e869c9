package io.blockcache.engine;

/**
 * What kind of value a knob holds, which says how {@code set} parses its text ({@link KnobSpec#parse}) and how
 * {@code get} prints it: every numeric knob prints a plain number in its base unit (the unit its name ends in),
 * and accepts that or a value with a unit.
 */
public enum KnobType {
    /** {@code true} or {@code false}. */
    BOOLEAN,
    /** One of a few names, lower case ({@link KnobSpec#values}). */
    ENUM,
    /** A plain count ({@code keys}, {@code sectors}, a divisor). */
    INTEGER,
    /** Bytes: {@code 4194304}, {@code 512K}, {@code 4M}, {@code 1G} ({@link Quantities#parseBytes}). */
    SIZE,
    /** A duration in the base unit of the knob's name ({@code _ms}, {@code _us}), or {@code 30s}, {@code 500ms}. */
    DURATION,
    /** Bytes per second: {@code 52428800}, {@code 50M/s}, {@code 50M} ({@link Quantities#parseBytesPerSecond}). */
    RATE,
    /** A percentage, {@code 40} or {@code 40%}. */
    PERCENT
}
