package io.blockcache.interop;

import io.blockcache.device.BlockDevice;
import io.blockcache.format.BackingHeader;
import io.blockcache.format.DecodeResult;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.function.Function;

/**
 * The process fuzz's last oracle: after the final drain and a clean stop, the backing file's data area (from the
 * backing header's {@code dataOffsetBytes}, docs/FORMAT.md §4) holds, sector for sector, the image last read over
 * NBD, except where the newest mutation was a trim (whose outcome the cache does not pin down). Pure; any thread.
 */
final class ProcessFuzzBacking {
    private static final int SECTOR_BYTES = BlockDevice.SECTOR_BYTES;
    /** docs/FORMAT.md §4: the backing header is one 4 KiB block at byte 0. */
    private static final int HEADER_BYTES = 4096;

    private ProcessFuzzBacking() {
    }

    /**
     * Compares; returns the number of sectors compared.
     *
     * @param violation makes the exception for a difference
     */
    static long compare(Path backingFile, byte[] image, ProcessFuzzModel model,
                        Function<String, ProcessFuzzViolation> violation) throws IOException {
        try (FileChannel channel = FileChannel.open(backingFile, StandardOpenOption.READ)) {
            ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES);
            channel.read(header, 0);
            DecodeResult<BackingHeader> decoded = BackingHeader.decode(header.array(), 0);
            if (!(decoded instanceof DecodeResult.Ok<BackingHeader> ok)) {
                throw violation.apply("the backing header does not decode: " + decoded);
            }
            long dataOffsetBytes = ok.value().dataOffsetBytes();
            ByteBuffer data = ByteBuffer.allocate(image.length);
            while (data.hasRemaining()) {
                if (channel.read(data, dataOffsetBytes + data.position()) < 0) {
                    throw violation.apply("the backing file ends at " + (dataOffsetBytes + data.position())
                            + ", before its " + image.length + "-byte data area ends");
                }
            }
            byte[] backing = data.array();
            long compared = 0;
            for (int at = 0; at < image.length; at += SECTOR_BYTES) {
                long sector = at / SECTOR_BYTES;
                if (model.trimmedLast(sector)) {
                    continue;
                }
                compared++;
                if (!Arrays.equals(backing, at, at + SECTOR_BYTES, image, at, at + SECTOR_BYTES)) {
                    throw violation.apply("sector " + sector + " of the backing file (byte " + (dataOffsetBytes + at)
                            + ") differs from what NBD read after the drain");
                }
            }
            return compared;
        }
    }
}
