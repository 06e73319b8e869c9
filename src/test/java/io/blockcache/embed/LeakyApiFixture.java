package io.blockcache.embed;

import io.blockcache.engine.CacheSetOptions;
import io.blockcache.loop.RealLoop;
import io.blockcache.volume.Volume;

/** Test fixture for EmbedApiTest: a public API type whose public members leak three internal types. */
public final class LeakyApiFixture {
    /** Leak 1: a public field of an internal type. */
    public RealLoop loop;

    /** Leak 2: an internal return type. */
    public Volume volume() {
        return null;
    }

    /** Leak 3: an internal parameter type. */
    public void configure(CacheSetOptions options) {
    }

    /** Not a leak: internal types in a private signature. */
    private Volume hidden(CacheSetOptions options) {
        return null;
    }
}
