package io.blockcache.engine;

import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/**
 * Where one knob's value lives: a field of an immutable settings record {@code S} (read as a long in the knob's
 * base unit, or as the index of a boolean or enum value), the record's defaults, and how a new record reaches the
 * live component. The record's constructor validates the relations between its fields (e.g. busy &le; idle);
 * {@link KnobSpec} validates the knob's own range before.
 *
 * <p>Thread rule: {@link #get} and {@link #set} on the cache set's loop thread; {@link #defaultValue} any thread.
 *
 * @param <S> the settings record
 */
final class KnobBinding<S> {
    /** A copy of {@code settings} with the knob's field set to {@code value}; throws if the record refuses it. */
    interface With<S> {
        S with(S settings, long value);
    }

    /** One settings record of a live component: its defaults, how to read it, how to replace it. */
    record Component<S>(Supplier<S> defaults, Function<KnobTarget, S> read, BiConsumer<KnobTarget, S> write) {
    }

    private final Component<S> component;
    private final ToLongFunction<S> field;
    private final With<S> with;

    KnobBinding(Component<S> component, ToLongFunction<S> field, With<S> with) {
        this.component = component;
        this.field = field;
        this.with = with;
    }

    /** The value in force on {@code target}. */
    long get(KnobTarget target) {
        return field.applyAsLong(component.read().apply(target));
    }

    /** Replaces {@code target}'s settings with ones holding {@code value}; throws if they are refused. */
    void set(KnobTarget target, long value) {
        component.write().accept(target, with.with(component.read().apply(target), value));
    }

    /** The value in the component's defaults: the one place defaults live, with their reasons. */
    long defaultValue() {
        return field.applyAsLong(component.defaults().get());
    }
}
