package io.blockcache.engine;

/**
 * One live tunable: named, documented, with its unit, readable and settable as text so that the admin API
 * and the CLI can expose every knob the same way. Declared in {@link KnobTable}.
 *
 * <p>Thread rule: {@link #get} and {@link #set} run on the cache set's loop thread (the admin API hops there).
 */
public interface Knob {
    /** Dotted name, e.g. {@code volume.default.mode} or {@code writeback.default.percent}. */
    String name();

    /** What it does, its range and its default, in one line. */
    String description();

    /** The current value as text: a plain number in the knob's base unit, or the value's name. */
    String get();

    /**
     * Sets the value from text ({@code 8M}, {@code 30s}, {@code 50M/s} or a plain number in the base unit).
     *
     * @throws IllegalArgumentException naming the knob, the value and what is allowed, if {@code value} is not
     */
    void set(String value);

    /**
     * {@code value} as {@link #get} would print it once set ({@code 30s} on a {@code _ms} knob: {@code 30000}), without
     * setting it: how a config reload tells a changed line from one written in other units.
     *
     * @throws IllegalArgumentException as {@link #set} does for a value it refuses by itself
     */
    String normalize(String value);

    /** For a deprecated name: one line saying so and naming its replacement; null for a current knob. */
    String deprecation();
}
