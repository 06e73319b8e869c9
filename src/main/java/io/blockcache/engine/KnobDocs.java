package io.blockcache.engine;

import java.util.Locale;

/**
 * The knob tables of the documentation, generated from {@link KnobTable}: one per {@link KnobGroup}, placed in its
 * document between the group's markers. {@code KnobTableTest} fails when a document's table differs, and prints
 * the table to paste (or run it with {@code -Dblockcache.writeKnobDocs=true} to rewrite the documents).
 *
 * <p>Pure; any thread.
 */
public final class KnobDocs {
    private KnobDocs() {
    }

    /** The markdown table of {@code group}'s knobs, markers excluded, each line ending in a newline. */
    public static String table(KnobGroup group) {
        StringBuilder out = new StringBuilder("| knob | type | default | allowed | what, and the default's source |\n")
                .append("|---|---|---|---|---|\n");
        for (KnobSpec spec : KnobTable.all()) {
            if (spec.group() != group) {
                continue;
            }
            String what = spec.replacedBy() == null ? spec.doc()
                    : "**deprecated**: use `" + spec.replacedBy() + "` (still works, with a warning)";
            out.append("| `").append(spec.pattern()).append("` | ").append(spec.type().name().toLowerCase(Locale.ROOT))
                    .append(" | ").append(spec.format(spec.defaultValue())).append(spec.values().isEmpty()
                            && !spec.unit().isEmpty() ? " " + spec.unit() : "")
                    .append(" | ").append(spec.allowed()).append(" | ").append(what).append(" |\n");
        }
        return out.toString();
    }

    /**
     * {@code document} with the table of {@code group} between its markers replaced by the generated one.
     *
     * @throws IllegalArgumentException if the document lacks the markers
     */
    public static String withTable(String document, KnobGroup group) {
        int begin = document.indexOf(group.beginMarker() + "\n");
        int end = document.indexOf(group.endMarker(), begin + 1);
        if (begin < 0 || end < 0) {
            throw new IllegalArgumentException(group.document() + " lacks the markers " + group.beginMarker()
                    + " ... " + group.endMarker());
        }
        return document.substring(0, begin + group.beginMarker().length() + 1) + table(group)
                + document.substring(end);
    }
}
