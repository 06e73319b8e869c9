package io.blockcache.volume;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import java.nio.ByteBuffer;

/**
 * Writes zeroes to a range of the backing device in chunks of one shared, read-only zero buffer, keeping at
 * most {@link #CHUNKS_IN_FLIGHT_MAX} chunks in flight so that zeroing a whole disk neither allocates nor
 * floods the device queue. A backing device that zeroes ranges itself ({@link BlockDevice#writesZeroes()}: an NBD
 * export offering WRITE_ZEROES) gets requests of up to {@link #NATIVE_CHUNK_BYTES} without a payload instead.
 *
 * <p>Thread rule: the loop thread.
 */
final class ZeroWriter {
    /** 1 MiB per write: large enough to stream, small enough to share one buffer cheaply. */
    static final int CHUNK_BYTES = 1 << 20;
    /**
     * One native zeroing request at most: 1 GiB, well inside NBD's 32-bit length field, and small enough that one
     * request does not hold a server for long.
     */
    static final int NATIVE_CHUNK_BYTES = 1 << 30;
    /** Enough to keep a disk busy without starving other requests. */
    static final int CHUNKS_IN_FLIGHT_MAX = 8;

    private final VolumeContext context;
    /** Zeroes never change, so every volume shares one read-only buffer (a view per write). */
    private static final ByteBuffer ZEROES = ByteBuffer.allocateDirect(CHUNK_BYTES).asReadOnlyBuffer();

    ZeroWriter(VolumeContext context) {
        this.context = context;
    }

    /** Zeroes {@code [startSector, + lengthSectors)} of the volume on the backing device. */
    void write(long startSector, long lengthSectors, boolean fua, IoCallback callback) {
        new Run(startSector * BlockDevice.SECTOR_BYTES, lengthSectors * BlockDevice.SECTOR_BYTES, fua, callback)
                .pump();
    }

    /** The state of one zeroing: the next byte to submit and the chunks in flight. */
    private final class Run {
        private final long endBytes;
        private final boolean fua;
        private final IoCallback callback;
        private long nextBytes;
        private int inFlight;
        private IoResult firstError;

        Run(long startBytes, long lengthBytes, boolean fua, IoCallback callback) {
            this.nextBytes = startBytes;
            this.endBytes = startBytes + lengthBytes;
            this.fua = fua;
            this.callback = callback;
        }

        void pump() {
            boolean natively = context.backingDevice.writesZeroes();
            while (firstError == null && inFlight < CHUNKS_IN_FLIGHT_MAX && nextBytes < endBytes) {
                int chunk = (int) Math.min(natively ? NATIVE_CHUNK_BYTES : CHUNK_BYTES, endBytes - nextBytes);
                long volumeOffset = nextBytes;
                nextBytes += chunk;
                inFlight++;
                long backingOffset = context.config.backingDataOffsetBytes() + volumeOffset;
                if (natively) {
                    context.backingDevice.writeZeroes(backingOffset, chunk, fua, this::chunkDone);
                } else {
                    ByteBuffer source = ZEROES.duplicate().limit(chunk);
                    context.backingDevice.write(backingOffset, source, fua, this::chunkDone);
                }
            }
            if (inFlight == 0 && (firstError != null || nextBytes >= endBytes)) {
                callback.complete(firstError == null ? IoResult.OK : firstError);
            }
        }

        private void chunkDone(IoResult result) {
            inFlight--;
            if (!result.ok() && firstError == null) {
                firstError = IoResult.error(IoStatus.IO_ERROR, "writing zeroes to the backing device failed: "
                        + result.message());
            }
            pump();
        }
    }
}
