package io.blockcache.volume;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/** CRC32C of buffer contents, without moving the caller's position. */
final class Crc {
    private Crc() {
    }

    /** CRC32C of {@code buffer} from its position to its limit. */
    static int of(ByteBuffer buffer) {
        CRC32C crc = new CRC32C();
        crc.update(buffer.duplicate());
        return (int) crc.getValue();
    }
}
