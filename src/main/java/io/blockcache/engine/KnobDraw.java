package io.blockcache.engine;

import io.blockcache.loop.Prng;
import java.util.List;

/**
 * How the fuzz randomises one knob (FoundationDB's {@code if (randomize && BUGGIFY) KNOB = ...}): a small set of
 * values, each written as an operator would write it (units included, so the draws exercise the parser), drawn
 * with equal chance (a value listed twice is twice as likely); or no draw, with the reason.
 *
 * @param choices the values drawn from; empty when skipped
 * @param skipReason why the knob is not drawn (a draw would make the run meaningless, or the knob is an alias);
 *     null when drawn
 */
public record KnobDraw(List<String> choices, String skipReason) {
    public KnobDraw {
        choices = List.copyOf(choices);
        if (choices.isEmpty() == (skipReason == null)) {
            throw new IllegalArgumentException("a knob draw has either choices or a reason to skip: " + choices);
        }
    }

    /** Draws one of {@code values}. */
    public static KnobDraw of(String... values) {
        return new KnobDraw(List.of(values), null);
    }

    /** Not drawn, for {@code reason}. */
    public static KnobDraw skip(String reason) {
        return new KnobDraw(List.of(), reason);
    }

    /** Whether the fuzz draws this knob. */
    public boolean drawn() {
        return skipReason == null;
    }

    /** One of the choices, from {@code prng} (one draw). */
    public String draw(Prng prng) {
        return choices.get(prng.nextInt(choices.size()));
    }
}
