package io.blockcache.volume;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * CRC32C of buffer contents, without moving the caller's position, and without allocating: one checksum object per
 * thread is reused (the front end computes one per 4 KiB request; the hot path allocates nothing).
 */
final class Crc {
    private static final ThreadLocal<CRC32C> CHECKSUMS = ThreadLocal.withInitial(CRC32C::new);

    private Crc() {
    }

    /**
     * CRC32C of {@code lengthBytes} bytes of {@code buffer} from absolute index {@code fromBytes}; its position and
     * limit are where they were on return.
     */
    static int of(ByteBuffer buffer, int fromBytes, int lengthBytes) {
        CRC32C crc = CHECKSUMS.get();
        crc.reset();
        int position = buffer.position();
        int limit = buffer.limit();
        buffer.limit(fromBytes + lengthBytes).position(fromBytes);
        crc.update(buffer);
        buffer.limit(limit).position(position);
        return (int) crc.getValue();
    }

    /** CRC32C of {@code buffer} from its position to its limit; the position is where it was on return. */
    static int of(ByteBuffer buffer) {
        CRC32C crc = CHECKSUMS.get();
        crc.reset();
        int position = buffer.position();
        crc.update(buffer); // moves the position to the limit: put back below, rather than updating a duplicate
        buffer.position(position);
        return (int) crc.getValue();
    }
}
