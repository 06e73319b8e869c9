package io.blockcache.format;

import io.blockcache.engine.CacheSetOptions;

/**
 * Breaks the layering on purpose (for {@code rules.LayeringTest}): {@code format} may use only {@code loop}, and
 * this class uses the engine. It lives in the test sources only; the production import never sees it.
 */
public final class LayeringViolationFixture {
    private LayeringViolationFixture() {
    }

    /** Reads an engine default: a dependency from the bottom layer to the top of the engine. */
    static int journalDelayOfTheDefaults() {
        return (int) CacheSetOptions.defaults().journalDelayNs();
    }
}
