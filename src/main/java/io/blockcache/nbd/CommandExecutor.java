package io.blockcache.nbd;

import static io.blockcache.nbd.NbdProtocol.*;

import io.blockcache.device.IoCallback;
import io.blockcache.device.IoJoin;
import io.blockcache.device.IoResult;
import io.blockcache.volume.Volume;
import io.blockcache.volume.VolumeConfig;
import java.nio.ByteBuffer;

/**
 * Carries out one transmission request on the volumes' loop and answers it: checks flags and ranges, maps
 * commands to volume calls, and volume outcomes to NBD error values.
 *
 * <p>Decisions: a range past the end is EINVAL for READ, TRIM, CACHE and BLOCK_STATUS and ENOSPC for WRITE
 * and WRITE_ZEROES (the spec's advice). FAST_ZERO is always refused with ENOTSUP: write-zeroes writes zeroes
 * to the backing device in 1 MiB pieces, which is not faster than a write, so the client is better off
 * falling back at once. NO_HOLE needs nothing: zeroes are always written, never punched. TRIM only discards
 * the whole sectors inside its range (it is a hint). FUA is accepted on every command.
 *
 * <p>Thread rule: the volumes' loop thread.
 */
final class CommandExecutor {
    private static final int SECTOR_BYTES = SectorSpan.SECTOR_BYTES;

    private CommandExecutor() {
    }

    /** Flags each command may carry (any other bit is EINVAL); READ may carry DF only when structured. */
    static int allowedFlags(int type, boolean structuredReplies) {
        return CMD_FLAG_FUA | switch (type) {
            case CMD_READ -> structuredReplies ? CMD_FLAG_DF : 0;
            case CMD_WRITE_ZEROES -> CMD_FLAG_NO_HOLE | CMD_FLAG_FAST_ZERO;
            case CMD_BLOCK_STATUS -> CMD_FLAG_REQ_ONE;
            default -> 0;
        };
    }

    /** Runs the request; its reply is sent from here or from a later completion. */
    static void execute(InFlightRequest request) {
        NbdRequest header = request.header();
        Session session = request.session();
        int unknown = header.flags() & ~allowedFlags(header.type(), session.structuredReplies());
        if (unknown != 0) {
            request.error(EINVAL, "flags 0x" + Integer.toHexString(unknown) + " are not valid for command "
                    + header.type());
            return;
        }
        Export export = session.export();
        switch (header.type()) {
            case CMD_READ -> read(export.volume(), request);
            case CMD_WRITE, CMD_WRITE_ZEROES -> write(export, request);
            case CMD_FLUSH -> export.volume().flush(result -> answer(request, result, false));
            case CMD_TRIM -> trim(export, request);
            case CMD_CACHE -> cache(export.volume(), request);
            case CMD_BLOCK_STATUS -> blockStatus(export.volume(), request);
            default -> request.error(EINVAL, "unknown command " + header.type());
        }
    }

    private static void read(Volume volume, InFlightRequest request) {
        NbdRequest header = request.header();
        if (refuseRange(volume, request, EINVAL)) {
            return;
        }
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
        if (header.has(CMD_FLAG_FAST_ZERO)) {
            request.error(ENOTSUP, "zeroing is not faster than writing on this server");
            return;
        }
        if (refuseRange(export.volume(), request, ENOSPC)) {
            return;
        }
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
        if (refuseRange(export.volume(), request, EINVAL)) {
            return;
        }
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
        if (refuseRange(volume, request, EINVAL)) {
            return;
        }
        if (header.lengthBytes() == 0) {
            request.ok();
            return;
        }
        CacheWarmer.warm(volume, new SectorSpan(header.offsetBytes(), header.lengthBytes()),
                request.buffer(CacheWarmer.CHUNK_BYTES), result -> answer(request, result, false));
    }

    private static void blockStatus(Volume volume, InFlightRequest request) {
        NbdRequest header = request.header();
        if (request.session().contexts().isEmpty()) {
            request.error(EINVAL, "BLOCK_STATUS needs a metadata context selected with NBD_OPT_SET_META_CONTEXT");
            return;
        }
        if (header.lengthBytes() == 0) {
            request.error(EINVAL, "BLOCK_STATUS of zero bytes");
            return;
        }
        if (refuseRange(volume, request, EINVAL)) {
            return;
        }
        request.chunks(BlockStatusReporter.chunks(volume, header, request.session().contexts()));
    }

    /** Answers {@code error} if the request's range is not inside the volume; returns true if it did. */
    private static boolean refuseRange(Volume volume, InFlightRequest request, int error) {
        NbdRequest header = request.header();
        long offsetBytes = header.offsetBytes();
        long lengthBytes = header.lengthBytes();
        long sizeBytes = volume.sizeBytes();
        if (offsetBytes >= 0 && lengthBytes <= sizeBytes && offsetBytes <= sizeBytes - lengthBytes) {
            return false;
        }
        request.error(error, "range [" + Long.toUnsignedString(offsetBytes) + ", +" + lengthBytes
                + ") is outside the export of " + sizeBytes + " bytes");
        return true;
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
