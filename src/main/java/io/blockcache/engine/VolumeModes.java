package io.blockcache.engine;

import io.blockcache.format.AttachedBacking;
import io.blockcache.volume.CacheMode;

/**
 * The cache mode a volume added live keeps across restarts, as the code in its superblock location record
 * (docs/FORMAT.md §3): 0 = the serve's default ({@link CacheSetOptions#mode}), 1 write-back, 2 write-through,
 * 3 write-around, 4 none. Codes are fixed here, not taken from the enum's order, so that reordering it changes nothing
 * on disk.
 */
final class VolumeModes {
    private static final CacheMode[] BY_CODE = {null, CacheMode.WRITEBACK, CacheMode.WRITETHROUGH,
        CacheMode.WRITEAROUND, CacheMode.NONE};

    private VolumeModes() {
    }

    /** The code of {@code mode}; 0 for null (the default). */
    static int code(CacheMode mode) {
        for (int code = 1; code < BY_CODE.length; code++) {
            if (BY_CODE[code] == mode) {
                return code;
            }
        }
        return 0;
    }

    /** The mode of {@code slot}: its recorded one, else the set's default (an unknown code too: a newer build's). */
    static CacheMode of(AttachedBacking slot, CacheSetOptions options) {
        int code = slot.modeCode();
        return code > 0 && code < BY_CODE.length ? BY_CODE[code] : options.mode();
    }
}
