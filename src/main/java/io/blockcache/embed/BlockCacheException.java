package io.blockcache.embed;

import java.io.IOException;

/**
 * A cache could not be opened, a request failed, or the cache stopped: the message says what and where in
 * one line. Failed futures of {@link CachedVolume} complete with this exception.
 */
public final class BlockCacheException extends IOException {
    public BlockCacheException(String message) {
        super(message);
    }
}
