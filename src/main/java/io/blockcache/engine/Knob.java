package io.blockcache.engine;

/**
 * One live tunable: named, documented, with its unit, readable and settable as text so that the admin API
 * and the CLI can expose every knob the same way.
 *
 * <p>Thread rule: {@link #get} and {@link #set} run on the cache set's loop thread (the admin API hops there).
 */
public interface Knob {
    /** Dotted name, e.g. {@code volume.default.mode} or {@code writeback.default.percent}. */
    String name();

    /** What it does, its range and its default, in one line. */
    String description();

    /** The current value as text. */
    String get();

    /**
     * Sets the value from text.
     *
     * @throws IllegalArgumentException with a message saying what is allowed, if {@code value} is not
     */
    void set(String value);

    /** A knob from a getter, a validating setter and a description. */
    static Knob of(String name, String description, java.util.function.Supplier<String> getter,
                   java.util.function.Consumer<String> setter) {
        return new Knob() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public String description() {
                return description;
            }

            @Override
            public String get() {
                return getter.get();
            }

            @Override
            public void set(String value) {
                setter.accept(value);
            }
        };
    }
}
