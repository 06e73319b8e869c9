package io.blockcache.nbd;

import io.blockcache.index.LookupVisitor;
import io.blockcache.index.ExtentLocation;
import io.blockcache.volume.Volume;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * Answers NBD_CMD_BLOCK_STATUS: one BLOCK_STATUS chunk per selected context (see {@link MetaContext} for the
 * meaning of the status bits), the last one final.
 *
 * <p>Bounds: {@code blockcache:state} looks at most {@link #STATE_QUERY_BYTES_MAX} from the offset and
 * sends at most {@link #DESCRIPTORS_MAX} descriptors (one with REQ_ONE); the spec lets a server describe
 * less than was asked, and the client asks again from where the reply ended.
 *
 * <p>Thread rule: the volumes' loop thread (reads the index).
 */
final class BlockStatusReporter {
    /** 128 MiB: a lookup visits at most 256 Ki sectors' worth of pieces, a bounded loop step. */
    static final long STATE_QUERY_BYTES_MAX = 128L << 20;
    /** Descriptors per chunk: 1024 x 8 bytes = 8 KiB per reply. */
    static final int DESCRIPTORS_MAX = 1024;
    private static final int SECTOR_BYTES = SectorSpan.SECTOR_BYTES;

    private BlockStatusReporter() {
    }

    /** Builds the reply chunks for a request already checked: in range, length > 0, contexts selected. */
    static ByteBuffer[] chunks(Volume volume, RequestHeader request, List<MetaContext> contexts) {
        boolean requestOne = request.has(NbdProtocol.CMD_FLAG_REQ_ONE);
        ByteBuffer[] chunks = new ByteBuffer[contexts.size()];
        for (int i = 0; i < chunks.length; i++) {
            boolean done = i == chunks.length - 1;
            Descriptors descriptors = new Descriptors(requestOne ? 1 : DESCRIPTORS_MAX);
            MetaContext context = contexts.get(i);
            if (context == MetaContext.BASE_ALLOCATION) {
                descriptors.add(request.lengthBytes(), 0); // allocated data: always true, see MetaContext
            } else {
                cacheState(volume, request.offsetBytes(), request.lengthBytes(), descriptors);
            }
            chunks[i] = TransmissionCodec.blockStatusChunk(request.handle(), done, context.id(),
                    descriptors.lengthsBytes, descriptors.statuses, descriptors.count);
        }
        return chunks;
    }

    private static void cacheState(Volume volume, long offsetBytes, long lengthBytes, Descriptors out) {
        long endBytes = offsetBytes + Math.min(lengthBytes, STATE_QUERY_BYTES_MAX);
        long firstSector = offsetBytes / SECTOR_BYTES;
        long endSector = (endBytes + SECTOR_BYTES - 1) / SECTOR_BYTES;
        volume.index().lookup(firstSector, (int) (endSector - firstSector), new LookupVisitor() {
            @Override
            public void hole(long startSector, int lengthSectors) {
                piece(startSector, lengthSectors, 0);
            }

            @Override
            public void extent(long startSector, int lengthSectors, long location, int crc32c,
                               int crcOffsetInBucketSectors, int crcLengthSectors) {
                int dirty = ExtentLocation.dirty(location) ? MetaContext.STATE_DIRTY : 0;
                piece(startSector, lengthSectors, MetaContext.STATE_CACHED | dirty);
            }

            private void piece(long startSector, int lengthSectors, int status) {
                long from = Math.max(startSector * SECTOR_BYTES, offsetBytes);
                long to = Math.min((startSector + lengthSectors) * SECTOR_BYTES, endBytes);
                out.add(to - from, status);
            }
        });
    }

    /** Collects descriptors, merging neighbours of equal status, until the bound is reached. */
    private static final class Descriptors {
        final long[] lengthsBytes;
        final int[] statuses;
        int count;
        boolean full;

        Descriptors(int capacity) {
            lengthsBytes = new long[capacity];
            statuses = new int[capacity];
        }

        void add(long lengthBytes, int status) {
            if (full || lengthBytes <= 0) {
                return;
            }
            if (count > 0 && statuses[count - 1] == status) {
                lengthsBytes[count - 1] += lengthBytes; // stays <= 128 MiB or the request's u32 length
                return;
            }
            if (count == lengthsBytes.length) {
                full = true; // a gap must not follow: later pieces are dropped, the reply just ends here
                return;
            }
            lengthsBytes[count] = lengthBytes;
            statuses[count] = status;
            count++;
        }
    }
}
