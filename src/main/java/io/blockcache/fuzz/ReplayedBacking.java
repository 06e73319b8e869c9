package io.blockcache.fuzz;

import io.blockcache.backinglog.BackingLogImage;
import io.blockcache.format.BackingHeader;
import io.blockcache.format.DecodeResult;
import io.blockcache.sim.SimDevice;
import java.nio.ByteBuffer;

/**
 * A backing device's volume as its log's replay would leave it (docs/FORMAT.md §4.4), read without a loop event
 * ({@link SimDevice#peek}) and computed in memory ({@link BackingLogImage}): the oracles judge a journaled volume's
 * backing device by it, since that is what a replay makes of it after the cache is lost. A device without a log (or
 * with an unreadable header) reads as it is. Stateless.
 */
final class ReplayedBacking {
    private ReplayedBacking() {
    }

    /** The first {@code rangeBytes} of the volume on {@code device}, its log replayed in thought. */
    static ByteBuffer contents(SimDevice device, long rangeBytes) {
        return contents(device, BackingHeader.DEFAULT_DATA_OFFSET_BYTES, rangeBytes);
    }

    /** {@link #contents(SimDevice, long)}, with the data at {@code tornHeaderDataOffsetBytes} if the header is torn. */
    static ByteBuffer contents(SimDevice device, long tornHeaderDataOffsetBytes, long rangeBytes) {
        ByteBuffer headerBytes = ByteBuffer.allocate(BackingHeader.BYTES);
        device.peek(0, headerBytes);
        DecodeResult<BackingHeader> header = BackingHeader.decode(headerBytes.array(), 0);
        long dataOffset = header.isOk() ? header.value().dataOffsetBytes() : tornHeaderDataOffsetBytes;
        ByteBuffer volume = ByteBuffer.allocate((int) rangeBytes);
        device.peek(dataOffset, volume);
        volume.clear();
        if (!header.isOk() || !header.value().hasLog()) {
            return volume;
        }
        byte[] log = new byte[(int) header.value().logSizeBytes()];
        device.peek(BackingHeader.LOG_OFFSET_BYTES, ByteBuffer.wrap(log));
        BackingLogImage.Result replayed = BackingLogImage.apply(log, header.value().backingUuid(), volume);
        if (replayed.failure() != null) {
            throw new IllegalStateException("the backing log cannot be replayed: " + replayed.failure());
        }
        return volume;
    }
}
