package io.blockcache.backinglog;

import io.blockcache.device.BlockDevice;
import io.blockcache.format.BackingLogCommit;
import io.blockcache.format.BackingLogLayout;
import io.blockcache.format.BackingLogRecord;
import io.blockcache.format.DecodeResult;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.Consumer;
import java.util.zip.CRC32C;

/**
 * Puts a committed backing log group in place (docs/FORMAT.md §4.4): reads the commit block; if it is valid and of
 * this device, reads the whole body once to check its CRC, then writes every record to its place in the volume,
 * flushes, and retires the log. Replaying twice writes the same bytes twice, so a power cut during a replay is
 * harmless: the commit stays valid until the retire, and the next open replays again.
 *
 * <p>Run at open, before anything else writes the volume's data (the engine), and by {@code check} after the cache
 * device was lost. A log with no valid commit (retired, torn, never written, or of an earlier format) has nothing to
 * replay and is left as it is. A valid commit over a body that fails its CRC cannot come from the writer (the commit
 * is written only after the body was flushed): that is damage, reported, and nothing is written.
 *
 * <p>Thread rule: the device's owning loop.
 */
public final class LogReplay {
    /** Bytes read (and written back in place) per step: a disk streams at this size. */
    static final int STEP_BYTES = LogGroupWriter.CHUNK_BYTES_MAX;

    /**
     * What a replay did.
     *
     * @param commit the group replayed, or null if the log held none
     * @param failure null on success (or when there was nothing to do), else why the log could not be replayed
     */
    public record Result(BackingLogCommit commit, String failure) {
        /** True if a group was put in place and the log retired. */
        public boolean replayed() {
            return commit != null && failure == null;
        }
    }

    private final BlockDevice device;
    private final BackingLogRegion region;
    private final Consumer<Result> done;
    private BackingLogCommit commit;
    private List<BackingLogRecord> records;

    private LogReplay(BlockDevice device, BackingLogRegion region, Consumer<Result> done) {
        this.device = device;
        this.region = region;
        this.done = done;
    }

    /** Replays the group {@code region}'s log holds, if any; {@code done} runs once. */
    public static void run(BlockDevice device, BackingLogRegion region, Consumer<Result> done) {
        new LogReplay(device, region, done).readCommit();
    }

    /** Reads the commit block only: the group the log holds, or null (nothing written). */
    public static void peek(BlockDevice device, BackingLogRegion region, Consumer<Result> done) {
        ByteBuffer block = ByteBuffer.allocate(BackingLogCommit.BYTES);
        device.read(region.logBytes(0), block, result -> {
            if (!result.ok()) {
                done.accept(new Result(null, "reading the backing log's commit block: " + result.message()));
                return;
            }
            done.accept(new Result(validCommit(block.array(), region), null));
        });
    }

    private static BackingLogCommit validCommit(byte[] block, BackingLogRegion region) {
        DecodeResult<BackingLogCommit> decoded = BackingLogCommit.decode(block, 0);
        BackingLogCommit commit = decoded.isOk() ? decoded.value() : null;
        if (commit == null || !commit.backingUuid().equals(region.backingUuid())
                || !region.layout().fits(commit.recordCount(), commit.dataBytes())) {
            return null; // retired, torn, of another format of the device, or not of this geometry
        }
        return commit;
    }

    private void readCommit() {
        peek(device, region, peeked -> {
            if (peeked.failure() != null || peeked.commit() == null) {
                done.accept(peeked);
                return;
            }
            commit = peeked.commit();
            checkBody(0, new CRC32C());
        });
    }

    /** Pass 1: the body's CRC, reading it in steps; the descriptors are the body's last blocks. */
    private void checkBody(long fromBytes, CRC32C crc) {
        long bodyBytes = commit.bodyBytes();
        if (fromBytes == bodyBytes) {
            if ((int) crc.getValue() != commit.bodyCrc()) {
                fail("the body of group " + commit.sequence() + " fails its CRC (found " + Integer.toHexString(
                        (int) crc.getValue()) + ", commit says " + Integer.toHexString(commit.bodyCrc())
                        + "): the backing log is damaged and the volume may hold part of that group");
                return;
            }
            readDescriptors();
            return;
        }
        int step = (int) Math.min(STEP_BYTES, bodyBytes - fromBytes);
        ByteBuffer buffer = ByteBuffer.allocate(step);
        device.read(region.logBytes(BackingLogLayout.DATA_OFFSET_BYTES + fromBytes), buffer, result -> {
            if (!result.ok()) {
                fail("reading the backing log's body at byte " + fromBytes + ": " + result.message());
                return;
            }
            crc.update(buffer.array(), 0, step);
            checkBody(fromBytes + step, crc);
        });
    }

    private void readDescriptors() {
        int bytes = (int) (BackingLogLayout.descriptorBlocks(commit.recordCount()) * BackingLogCommit.BYTES);
        ByteBuffer buffer = ByteBuffer.allocate(bytes);
        device.read(region.logBytes(BackingLogLayout.descriptorsOffsetBytes(commit.dataBytes())), buffer, result -> {
            if (!result.ok()) {
                fail("reading the backing log's descriptors: " + result.message());
                return;
            }
            DecodeResult<List<BackingLogRecord>> decoded = BackingLogRecord.decode(buffer.array(),
                    commit.recordCount());
            if (!decoded.isOk()) {
                fail(decoded.error().message());
                return;
            }
            long slots = 0;
            for (BackingLogRecord record : decoded.value()) {
                slots += BackingLogLayout.recordSlotBytes(record.lengthSectors());
                if (record.volumeSector() + record.lengthSectors() > region.volumeSectors()) {
                    fail("backing log record [" + record.volumeSector() + ", + " + record.lengthSectors()
                            + ") reaches past the volume's " + region.volumeSectors() + " sectors");
                    return;
                }
            }
            if (slots != commit.dataBytes()) {
                fail("the backing log's records take " + slots + " bytes, its commit says " + commit.dataBytes());
                return;
            }
            records = decoded.value();
            apply(0, 0);
        });
    }

    /**
     * Pass 2: from record {@code first} (at log data byte {@code dataFromBytes}), reads as many whole records as fit in
     * a step (at least one), writes each to its place, and goes on when all those writes completed.
     */
    private void apply(int first, long dataFromBytes) {
        if (first == records.size()) {
            device.flush(flushed -> {
                if (!flushed.ok()) {
                    fail("flushing the replayed group: " + flushed.message());
                    return;
                }
                LogGroupWriter.retire(device, region, failure -> done.accept(new Result(commit, failure)));
            });
            return;
        }
        int end = first;
        long stepBytes = 0;
        do {
            stepBytes += BackingLogLayout.recordSlotBytes(records.get(end).lengthSectors());
            end++;
        } while (end < records.size()
                && stepBytes + BackingLogLayout.recordSlotBytes(records.get(end).lengthSectors()) <= STEP_BYTES);
        int last = end;
        long readBytes = stepBytes;
        ByteBuffer buffer = ByteBuffer.allocate((int) readBytes); // heap: see ChunkBuffers
        device.read(region.logBytes(BackingLogLayout.DATA_OFFSET_BYTES + dataFromBytes), buffer, read -> {
            if (!read.ok()) {
                fail("reading the backing log's records at byte " + dataFromBytes + ": " + read.message());
                return;
            }
            int[] pending = {last - first};
            String[] failure = {null};
            long at = 0;
            for (int i = first; i < last; i++) {
                BackingLogRecord record = records.get(i);
                int lengthBytes = record.lengthSectors() * BlockDevice.SECTOR_BYTES;
                ByteBuffer data = buffer.slice((int) at, lengthBytes);
                at += BackingLogLayout.recordSlotBytes(record.lengthSectors());
                device.write(region.volumeBytes(record.volumeSector()), data, false, written -> {
                    if (!written.ok() && failure[0] == null) {
                        failure[0] = "writing a replayed record at volume sector " + record.volumeSector() + ": "
                                + written.message();
                    }
                    if (--pending[0] == 0) {
                        if (failure[0] != null) {
                            fail(failure[0]);
                        } else {
                            apply(last, dataFromBytes + readBytes);
                        }
                    }
                });
            }
        });
    }

    private void fail(String failure) {
        done.accept(new Result(commit, failure));
    }
}
