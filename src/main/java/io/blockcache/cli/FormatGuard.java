package io.blockcache.cli;

import io.blockcache.format.BackingHeader;
import io.blockcache.format.CacheSuperblock;
import io.blockcache.format.DecodeError;
import io.blockcache.format.DecodeResult;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Says whether an existing file already holds blockcache metadata, so that {@code format} never silently
 * destroys a cache set (and the dirty data in it) or detaches a backing device from its cache. A structure
 * with our magic but a bad checksum counts too: it is most likely a damaged cache that someone may still
 * want to examine or recover.
 */
final class FormatGuard {
    private FormatGuard() {
    }

    /** The bytes at the start of a device that hold every structure this guard looks for. */
    static final int HEAD_BYTES = 2 * CacheSuperblock.BYTES;

    /** Returns what blockcache metadata {@code path} holds, as a phrase ("holds ..."), or null if none. */
    static String blockcacheContents(Path path) throws IOException {
        ByteBuffer head = ByteBuffer.allocate(HEAD_BYTES);
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            while (head.hasRemaining() && channel.read(head, head.position()) >= 0) {
                // read until full or end of file; a short file leaves zeroes, which match no magic
            }
        }
        return blockcacheContents(head.array());
    }

    /** As {@link #blockcacheContents(Path)}, for the first bytes of a device (shorter than HEAD_BYTES is fine). */
    static String blockcacheContents(byte[] head) {
        byte[] bytes = java.util.Arrays.copyOf(head, HEAD_BYTES);
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
