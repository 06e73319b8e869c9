package io.blockcache.engine;

/**
 * Which documentation table lists a knob: each group's table in its document is generated from {@link KnobTable}
 * and checked against it ({@code engine.KnobTableTest}), between the markers {@link #beginMarker} and
 * {@link #endMarker}.
 */
public enum KnobGroup {
    /** The volume's cache mode: docs/OPERATIONS.md. */
    VOLUME("docs/OPERATIONS.md"),
    /** Bypass decisions and the write throttle: docs/GC.md. */
    BYPASS("docs/GC.md"),
    /** Read admission and promotion: docs/CACHING.md. */
    CACHING("docs/CACHING.md"),
    /** Garbage collection: docs/GC.md. */
    GC("docs/GC.md"),
    /** Writeback: docs/WRITEBACK.md. */
    WRITEBACK("docs/WRITEBACK.md");

    private final String document;

    KnobGroup(String document) {
        this.document = document;
    }

    /** The document, relative to the repository's root. */
    public String document() {
        return document;
    }

    /** The line before the generated table. */
    public String beginMarker() {
        return "<!-- knob table " + name().toLowerCase(java.util.Locale.ROOT)
                + ": generated from engine.KnobTable, checked by KnobTableTest -->";
    }

    /** The line after it. */
    public String endMarker() {
        return "<!-- end of knob table " + name().toLowerCase(java.util.Locale.ROOT) + " -->";
    }
}
