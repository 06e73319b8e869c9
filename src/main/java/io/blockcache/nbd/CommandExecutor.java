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
 * <p>Allocation: READ, WRITE, WRITE_ZEROES, FLUSH and CACHE complete through the request object itself
 * ({@link #completed}); TRIM and BLOCK_STATUS, rare, still allocate their callbacks and chunks.
 *
 * <p>Thread rule: the volumes' loop thread.
 */
final class CommandExecutor {
    private static final int SECTOR_BYTES = SectorSpan.SECTOR_BYTES;

    private CommandExecutor() {
    }

    /** Runs the request; its reply is sent from here or from a later completion. */
    static void execute(InFlightRequest request) {
        Session session = request.session();
        RequestCheck.Refusal refusal = RequestCheck.refusal(request, session); // the reader asked too; cheap
        if (refusal != null) {
            request.error(refusal.error(), refusal.message());
            return;
        }
        Export export = session.export();
        switch (request.type()) {
            case CMD_READ -> read(export.volume(), request);
            case CMD_WRITE, CMD_WRITE_ZEROES -> write(request);
            case CMD_FLUSH -> export.volume().flush(request.awaitVolume());
            case CMD_TRIM -> trim(export, request);
            case CMD_CACHE -> cache(export.volume(), request);
            case CMD_BLOCK_STATUS -> request.chunks(BlockStatusReporter.chunks(export.volume(), request,
                    session.contexts()));
            default -> throw new IllegalStateException("RequestCheck passed unknown command " + request.type());
        }
    }

    /**
     * A volume call made with {@link InFlightRequest#awaitVolume} as its callback has completed: answers. A READ's
     * data is the request's own buffer, positioned on the bytes asked for (no view: nothing allocated per request).
     */
    static void completed(InFlightRequest request, IoResult result) {
        if (request.type() == CMD_READ && result.ok()) {
            int inCoverBytes = (int) (request.offsetBytes() % SECTOR_BYTES);
            request.data(request.window(inCoverBytes, (int) request.lengthBytes()));
            return;
        }
        int type = request.type();
        answer(request, result, type == CMD_WRITE || type == CMD_WRITE_ZEROES || type == CMD_TRIM);
    }

    private static void read(Volume volume, InFlightRequest request) {
        if (request.lengthBytes() == 0) {
            request.data(ByteBuffer.allocate(0));
            return;
        }
        long firstSector = request.offsetBytes() / SECTOR_BYTES;
        long endSector = (request.offsetBytes() + request.lengthBytes() + SECTOR_BYTES - 1) / SECTOR_BYTES;
        long coverOffsetBytes = firstSector * SECTOR_BYTES;
        int coverBytes = (int) ((endSector - firstSector) * SECTOR_BYTES);
        ByteBuffer cover = request.buffer(coverBytes);
        if (coverBytes <= VolumeConfig.REQUEST_BYTES_MAX) {
            volume.read(coverOffsetBytes, cover, request.awaitVolume());
            return;
        }
        // An unaligned READ of the maximum length covers a sector more than the volume takes at once: two reads.
        IoJoin join = new IoJoin(request.awaitVolume());
        int firstBytes = VolumeConfig.REQUEST_BYTES_MAX;
        volume.read(coverOffsetBytes, cover.slice(0, firstBytes), join.add());
        volume.read(coverOffsetBytes + firstBytes, cover.slice(firstBytes, coverBytes - firstBytes), join.add());
        join.seal();
    }

    private static void write(InFlightRequest request) {
        if (request.lengthBytes() == 0) {
            request.ok();
            return;
        }
        request.sectorWriter().write(request.offsetBytes(), request.lengthBytes(), request.payload(),
                request.has(CMD_FLAG_FUA), request.awaitVolume());
    }

    private static void trim(Export export, InFlightRequest request) {
        long startSector = (request.offsetBytes() + SECTOR_BYTES - 1) / SECTOR_BYTES;
        long endSector = (request.offsetBytes() + request.lengthBytes()) / SECTOR_BYTES;
        if (endSector <= startSector) {
            request.ok(); // no whole sector inside: nothing to discard
            return;
        }
        Volume volume = export.volume();
        SectorRangeLock lock = export.lock();
        lock.acquire(startSector, endSector, held -> volume.discard(startSector * SECTOR_BYTES,
                (endSector - startSector) * SECTOR_BYTES, result -> {
                    lock.release(held);
                    if (result.ok() && request.has(CMD_FLAG_FUA)) {
                        volume.flush(flushed -> answer(request, flushed, true));
                    } else {
                        answer(request, result, true);
                    }
                }));
    }

    private static void cache(Volume volume, InFlightRequest request) {
        if (request.lengthBytes() == 0) {
            request.ok();
            return;
        }
        CacheWarmer.warm(volume, new SectorSpan(request.offsetBytes(), request.lengthBytes()),
                request.buffer(CacheWarmer.CHUNK_BYTES), request.awaitVolume());
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
