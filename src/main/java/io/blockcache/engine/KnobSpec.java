package io.blockcache.engine;

import java.util.List;
import java.util.Locale;

/**
 * The one declaration of a live knob ({@link KnobTable}): its name, type, base unit, allowed range, one-line doc,
 * how the fuzz draws it, which documentation table lists it, and where its value lives. Parsing and range checks
 * ({@link #parse}), the text {@code get} prints ({@link #format}), the description the admin API and
 * {@code blockcache get} show, the documentation tables ({@link KnobDocs}) and the fuzz draws all come from here.
 *
 * <p>The default is not declared: it is read from the settings record's defaults ({@link #defaultValue}), where
 * each default has its reason. Immutable; any thread.
 */
public final class KnobSpec {
    /** The placeholder for the volume's name in a per-volume knob's pattern. */
    public static final String VOLUME = "NAME";

    private final String pattern;
    private final KnobType type;
    private final String unit;
    private final long min;
    private final long max;
    private final long step;
    private final List<String> values;
    private final String doc;
    private final KnobDraw draw;
    private final KnobGroup group;
    private final KnobBinding<?> binding;
    private final String replacedBy;

    KnobSpec(String pattern, KnobType type, String unit, long min, long max, long step, List<String> values, String doc,
             KnobDraw draw, KnobGroup group, KnobBinding<?> binding, String replacedBy) {
        if (min > max || step < 1 || ((type == KnobType.ENUM || type == KnobType.BOOLEAN) != !values.isEmpty())) {
            throw new IllegalArgumentException("bad knob declaration: " + pattern);
        }
        this.pattern = pattern;
        this.type = type;
        this.unit = unit;
        this.min = min;
        this.max = max;
        this.step = step;
        this.values = List.copyOf(values);
        this.doc = doc;
        this.draw = draw;
        this.group = group;
        this.binding = binding;
        this.replacedBy = replacedBy;
    }

    /** This knob with values that must be multiples of {@code newStep} (in the base unit). */
    KnobSpec step(long newStep) {
        return new KnobSpec(pattern, type, unit, min, max, newStep, values, doc, draw, group, binding, replacedBy);
    }

    /**
     * This knob as a deprecated alias of {@code newPattern}: it still works, is not listed, is not drawn by the
     * fuzz (its replacement is), and every use answers with a one-line warning.
     */
    KnobSpec deprecatedFor(String newPattern) {
        return new KnobSpec(pattern, type, unit, min, max, step, values, doc,
                KnobDraw.skip("deprecated alias of " + newPattern + ", which is drawn"), group, binding, newPattern);
    }

    /** The name with {@link #VOLUME} for the volume's name, e.g. {@code writeback.NAME.percent}. */
    public String pattern() {
        return pattern;
    }

    /** Whether each volume has one (the pattern names the volume). */
    public boolean perVolume() {
        return pattern.contains("." + VOLUME + ".");
    }

    /** The knob's name for volume {@code volume} (ignored for a cache set's knob). */
    public String name(String volume) {
        return name(pattern, volume);
    }

    /** The name {@code pattern} gives volume {@code volume} (a cache set's pattern names no volume). */
    static String name(String pattern, String volume) {
        return pattern.replace("." + VOLUME + ".", "." + volume + ".");
    }

    public KnobType type() {
        return type;
    }

    /** The base unit {@code get} prints and a plain number means: {@code ms}, {@code bytes/s}, {@code %}, ... */
    public String unit() {
        return unit;
    }

    /** Smallest value, in the base unit (for booleans and enums, the first value's index: 0). */
    public long min() {
        return min;
    }

    /** Largest value, in the base unit. */
    public long max() {
        return max;
    }

    /** The names a boolean or enum knob takes, in index order; empty for numbers. */
    public List<String> values() {
        return values;
    }

    /** What the knob does and why its default is what it is, in one line. */
    public String doc() {
        return doc;
    }

    /** How the fuzz draws it. */
    public KnobDraw draw() {
        return draw;
    }

    public KnobGroup group() {
        return group;
    }

    /**
     * Whether the knob changes a running cache set (every knob in the table does: the admin API, {@code set},
     * {@code reload}); settings that need a restart are flags of {@code serve}, not knobs.
     */
    public boolean live() {
        return true;
    }

    /** The pattern of the knob that replaces this deprecated one, or null if it is current. */
    public String replacedBy() {
        return replacedBy;
    }

    /** The default, in the base unit (or the index of the default value). */
    public long defaultValue() {
        return binding.defaultValue();
    }

    KnobBinding<?> binding() {
        return binding;
    }

    /**
     * Parses {@code text} as an operator writes it ({@code 8M}, {@code 30s}, {@code 50M/s}, {@code 40%}, {@code lba},
     * or a plain number in the base unit) and checks the range.
     *
     * @param name the knob's name, for the message
     * @return the value in the base unit (or the index of the value)
     * @throws IllegalArgumentException naming the knob, the value and what is allowed
     */
    public long parse(String name, String text) {
        String s = text.strip();
        long value;
        try {
            value = switch (type) {
                case BOOLEAN, ENUM -> indexOf(s);
                case INTEGER -> Long.parseLong(s);
                case PERCENT -> Long.parseLong(s.endsWith("%") ? s.substring(0, s.length() - 1).strip() : s);
                case SIZE -> Quantities.parseBytes(s);
                case RATE -> Quantities.parseBytesPerSecond(s);
                case DURATION -> wholeUnits(Quantities.parseNs(s, unitNs()));
            };
        } catch (NumberFormatException e) {
            throw refusal(name, text, "is not a whole number");
        } catch (IllegalArgumentException e) {
            throw refusal(name, text, "is not allowed" + (e.getMessage() == null ? "" : " (" + e.getMessage() + ")"));
        }
        if (value < min || value > max) {
            throw refusal(name, text, "is out of range");
        }
        if (value % step != 0) {
            throw refusal(name, text, "is not a multiple of " + step + " " + unit);
        }
        return value;
    }

    /** The text {@code get} prints for {@code value}: a plain number in the base unit, or the value's name. */
    public String format(long value) {
        return values.isEmpty() ? Long.toString(value) : values.get((int) value);
    }

    /** What values are allowed, e.g. {@code 1000..86400000 ms (or 30s, 500ms, 1h)} or {@code lba, fifo, auto}. */
    public String allowed() {
        String range = min + ".." + max + (unit.isEmpty() ? "" : " " + unit)
                + (step > 1 ? ", a multiple of " + step : "");
        return switch (type) {
            case BOOLEAN, ENUM -> String.join(", ", values);
            case INTEGER, PERCENT -> range;
            case SIZE -> range + " (or 512K, 4M, 1G)";
            case RATE -> range + " (or 512K/s, 50M/s)";
            case DURATION -> range + " (or 500ms, 30s, 1h)";
        };
    }

    /** One line for {@code blockcache get} and the admin API: doc, allowed values, default. */
    public String description() {
        return (replacedBy == null ? "" : "deprecated: use " + replacedBy + "; ") + doc + "; " + allowed()
                + "; default " + format(defaultValue());
    }

    private long indexOf(String s) {
        int index = values.indexOf(s.toLowerCase(Locale.ROOT));
        if (index < 0) {
            throw new IllegalArgumentException(); // the refusal lists the values
        }
        return index;
    }

    private long unitNs() {
        return switch (unit) {
            case "ms" -> Quantities.MS;
            case "us" -> Quantities.US;
            case "s" -> Quantities.SECOND;
            default -> throw new IllegalStateException("duration knob " + pattern + " has no time unit: " + unit);
        };
    }

    private long wholeUnits(long ns) {
        if (ns % unitNs() != 0) {
            throw new IllegalArgumentException("not a whole number of " + unit);
        }
        return ns / unitNs();
    }

    private IllegalArgumentException refusal(String name, String text, String why) {
        return new IllegalArgumentException(name + ": \"" + text.strip() + "\" " + why + "; allowed: " + allowed());
    }
}
