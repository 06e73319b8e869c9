package io.blockcache.engine;

/**
 * A knob of {@link KnobTable} bound to one volume or to the cache set: its text goes through the declaration's
 * parser and range ({@link KnobSpec#parse}), then the settings record validates it against the other fields.
 *
 * <p>Thread rule: {@link #get} and {@link #set} on the cache set's loop thread.
 */
final class TableKnob implements Knob {
    private final KnobSpec spec;
    private final String volumeName;
    private final String name;
    private final KnobTarget target;

    /** {@code spec} on {@code target}, for volume {@code volumeName} (null for a cache set's knob). */
    TableKnob(KnobSpec spec, String volumeName, KnobTarget target) {
        this.spec = spec;
        this.volumeName = volumeName;
        this.name = spec.name(volumeName);
        this.target = target;
    }

    /** The volume this knob belongs to, or null for a cache set's knob. */
    String volumeName() {
        return volumeName;
    }

    /** The declaration. */
    KnobSpec spec() {
        return spec;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String description() {
        return spec.description();
    }

    @Override
    public String get() {
        return spec.format(spec.binding().get(target));
    }

    @Override
    public void set(String value) {
        long parsed = spec.parse(name, value);
        try {
            spec.binding().set(target, parsed);
        } catch (IllegalArgumentException refused) {
            // The settings record (or the component) refused a relation between knobs, or a state: say which knob.
            throw new IllegalArgumentException(name + ": \"" + value.strip() + "\" refused: " + refused.getMessage(),
                    refused);
        }
    }

    @Override
    public String normalize(String value) {
        return spec.format(spec.parse(name, value));
    }

    @Override
    public String deprecation() {
        if (spec.replacedBy() == null) {
            return null;
        }
        return name + " is deprecated and will go: use " + KnobSpec.name(spec.replacedBy(), volumeName);
    }
}
