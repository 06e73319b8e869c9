package io.blockcache.nbd;

import static io.blockcache.nbd.NbdProtocol.*;

import io.blockcache.device.IoCallback;
import io.blockcache.device.IoJoin;
import io.blockcache.device.IoResult;
import io.blockcache.volume.Volume;
import io.blockcache.volume.VolumeConfig;
import java.nio.ByteBuffer;

/**
 * Carries out one transmission request on the volumes' loop and answers it: maps commands to volume calls, and
 * volume outcomes to NBD error values. What must be refused (flags, ranges, FAST_ZERO) {@link RequestCheck}
 * decides, on the reader before anything is allocated; the check is repeated here because it costs nothing.
 *
 * <p>Decisions: NO_HOLE needs nothing: zeroes are always written, never punched. TRIM only discards the whole
 * sectors inside its range (it is a hint). FUA is accepted on every command.
 *
 * <p>Thread rule: the volumes' loop thread.
 */
final class CommandExecutor {
    private static final int SECTOR_BYTES = SectorSpan.SECTOR_BYTES;

    private CommandExecutor() {
    }

    /** Runs the request; its reply is sent from here or from a later completion. */
    static void execute(InFlightRequest request) {
        NbdRequest header = request.header();
        Session session = request.session();
        RequestCheck.Refusal refusal = RequestCheck.refusal(header, session); // the reader asked too; cheap
        if (refusal != null) {
            request.error(refusal.error(), refusal.message());
            return;
        }
        Export export = session.export();
        switch (header.type()) {
            case CMD_READ -> read(export.volume(), request);
            case CMD_WRITE, CMD_WRITE_ZEROES -> write(export, request);
            case CMD_FLUSH -> export.volume().flush(result -> answer(request, result, false));
            case CMD_TRIM -> trim(export, request);
            case CMD_CACHE -> cache(export.volume(), request);
            case CMD_BLOCK_STATUS -> request.chunks(BlockStatusReporter.chunks(export.volume(), header,
                    session.contexts()));
            default -> throw new IllegalStateException("RequestCheck passed unknown command " + header.type());
        }
    }

    private static void read(Volume volume, InFlightRequest request) {
        NbdRequest header = request.header();
        if (header.lengthBytes() == 0) {
            request.data(ByteBuffer.allocate(0));
            return;
        }
        SectorSpan span = new SectorSpan(header.offsetBytes(), header.lengthBytes());
        long coverOffsetBytes = span.firstSector() * SECTOR_BYTES;
        int coverBytes = (int) ((span.endSector() - span.firstSector()) * SECTOR_BYTES);
        ByteBuffer cover = request.buffer(coverBytes);
        IoCallback done = result -> {
            if (result.ok()) {
                request.data(cover.slice((int) (header.offsetBytes() - coverOffsetBytes), (int) header.lengthBytes()));
            } else {
                answer(request, result, false);
            }
        };
        if (coverBytes <= VolumeConfig.REQUEST_BYTES_MAX) {
            volume.read(coverOffsetBytes, cover, done);
            return;
        }
        // An unaligned READ of the maximum length covers a sector more than the volume takes at once: two reads.
        IoJoin join = new IoJoin(done);
        int firstBytes = VolumeConfig.REQUEST_BYTES_MAX;
        volume.read(coverOffsetBytes, cover.slice(0, firstBytes), join.add());
        volume.read(coverOffsetBytes + firstBytes, cover.slice(firstBytes, coverBytes - firstBytes), join.add());
        join.seal();
    }

    private static void write(Export export, InFlightRequest request) {
        NbdRequest header = request.header();
        if (header.lengthBytes() == 0) {
            request.ok();
            return;
        }
        SectorSpan span = new SectorSpan(header.offsetBytes(), header.lengthBytes());
        new SectorWriter(export).write(span, request.payload(), header.has(CMD_FLAG_FUA),
                result -> answer(request, result, true));
    }

    private static void trim(Export export, InFlightRequest request) {
        NbdRequest header = request.header();
        long startSector = (header.offsetBytes() + SECTOR_BYTES - 1) / SECTOR_BYTES;
        long endSector = (header.offsetBytes() + header.lengthBytes()) / SECTOR_BYTES;
        if (endSector <= startSector) {
            request.ok(); // no whole sector inside: nothing to discard
            return;
        }
        Volume volume = export.volume();
        SectorRangeLock lock = export.lock();
        lock.acquire(startSector, endSector, held -> volume.discard(startSector * SECTOR_BYTES,
                (endSector - startSector) * SECTOR_BYTES, result -> {
                    lock.release(held);
                    if (result.ok() && header.has(CMD_FLAG_FUA)) {
                        volume.flush(flushed -> answer(request, flushed, true));
                    } else {
                        answer(request, result, true);
                    }
                }));
    }

    private static void cache(Volume volume, InFlightRequest request) {
        NbdRequest header = request.header();
        if (header.lengthBytes() == 0) {
            request.ok();
            return;
        }
        CacheWarmer.warm(volume, new SectorSpan(header.offsetBytes(), header.lengthBytes()),
                request.buffer(CacheWarmer.CHUNK_BYTES), result -> answer(request, result, false));
    }

    /** Answers from a volume outcome. */
    private static void answer(InFlightRequest request, IoResult result, boolean writing) {
        if (result.ok()) {
            request.ok();
            return;
        }
        int error = switch (result.status()) {
            case OUT_OF_RANGE -> writing ? ENOSPC : EINVAL;
            case NO_SPACE -> ENOSPC;
            case MISALIGNED -> EINVAL;
            case CLOSED -> ESHUTDOWN;
            default -> EIO;
        };
        request.error(error, result.message());
    }
}
