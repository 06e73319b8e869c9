package io.blockcache.format;

import java.util.Arrays;

/**
 * Says whether the first bytes of a device hold blockcache metadata, so that neither {@code format} nor a
 * {@code serve} that makes a new cache silently destroys a cache set (and the dirty data in it) or detaches a
 * backing device from the cache that holds its dirty data. A structure with our magic but a bad checksum counts
 * too: it is most likely a damaged cache that someone may still want to examine or recover.
 *
 * <p>Pure functions; any thread.
 */
public final class ExistingMetadata {
    /** The bytes at the start of a device that hold every structure this looks for (both superblock copies). */
    public static final int HEAD_BYTES = 2 * CacheSuperblock.BYTES;

    private ExistingMetadata() {
    }

    /**
     * What blockcache metadata {@code head} holds, as a phrase ("holds ..."), or null if none.
     *
     * @param head the first bytes of a device; shorter than {@link #HEAD_BYTES} is fine (the rest counts as zeros)
     */
    public static String describe(byte[] head) {
        byte[] bytes = Arrays.copyOf(head, HEAD_BYTES);
        for (int copy = 0; copy < 2; copy++) {
            DecodeResult<CacheSuperblock> superblock = CacheSuperblock.decode(bytes, copy * CacheSuperblock.BYTES);
            if (superblock.isOk()) {
                CacheSuperblock found = superblock.value();
                return "holds a blockcache cache superblock (cache set " + found.cacheSetUuid() + ", sequence "
                        + found.sequence() + ", " + found.backings().size() + " backing devices)";
            }
            if (hasMagic(superblock)) {
                return "holds a damaged blockcache cache superblock (copy " + (copy == 0 ? "A" : "B") + ": "
                        + superblock.error().message() + ")";
            }
        }
        DecodeResult<BackingHeader> header = BackingHeader.decode(bytes, 0);
        if (header.isOk()) {
            return "holds a blockcache backing header (attached to cache set " + header.value().cacheSetUuid()
                    + ")";
        }
        if (hasMagic(header)) {
            return "holds a damaged blockcache backing header (" + header.error().message() + ")";
        }
        return null;
    }

    private static boolean hasMagic(DecodeResult<?> result) {
        DecodeError.Kind kind = result.error().kind();
        return kind != DecodeError.Kind.BAD_MAGIC && kind != DecodeError.Kind.TRUNCATED;
    }
}
