package io.blockcache.backinglog;

import io.blockcache.device.BlockDevice;
import io.blockcache.format.BackingLogCommit;
import io.blockcache.format.BackingLogLayout;
import io.blockcache.format.BackingLogRecord;
import io.blockcache.format.DecodeResult;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.UUID;
import java.util.zip.CRC32C;

/**
 * The replay of a backing log on bytes in memory (docs/FORMAT.md §4.4): what the volume would hold after {@link
 * LogReplay}, computed without a device. For the simulator's oracles, which judge a backing device "in thought",
 * without changing it; written apart from {@link LogReplay} so that the two check each other. Stateless.
 */
public final class BackingLogImage {
    /**
     * What applying a log did.
     *
     * @param commit the group applied, or null if the log held none
     * @param failure null, or why a valid commit could not be applied (its body fails its CRC: damage)
     */
    public record Result(BackingLogCommit commit, String failure) {
    }

    private BackingLogImage() {
    }

    /**
     * Applies the group {@code log} (the whole log region of a device of {@code backingUuid}) holds, if any, to
     * {@code volume}: the volume's first {@code volume.capacity()} bytes from byte 0; record bytes past them are left
     * out.
     */
    public static Result apply(byte[] log, UUID backingUuid, ByteBuffer volume) {
        DecodeResult<BackingLogCommit> decoded = BackingLogCommit.decode(log, 0);
        if (!decoded.isOk() || !decoded.value().backingUuid().equals(backingUuid)) {
            return new Result(null, null);
        }
        BackingLogCommit commit = decoded.value();
        long body = commit.bodyBytes();
        if (BackingLogLayout.COMMIT_BYTES + body > log.length) {
            return new Result(null, null); // not of this geometry: LogReplay ignores it too
        }
        CRC32C crc = new CRC32C();
        crc.update(log, BackingLogLayout.COMMIT_BYTES, (int) body);
        if ((int) crc.getValue() != commit.bodyCrc()) {
            return new Result(commit, "the body of group " + commit.sequence() + " fails its CRC");
        }
        int descriptorsAt = (int) BackingLogLayout.descriptorsOffsetBytes(commit.dataBytes());
        byte[] descriptors = java.util.Arrays.copyOfRange(log, descriptorsAt,
                descriptorsAt + (int) (BackingLogLayout.descriptorBlocks(commit.recordCount()) * 4096));
        DecodeResult<List<BackingLogRecord>> records = BackingLogRecord.decode(descriptors, commit.recordCount());
        if (!records.isOk()) {
            return new Result(commit, records.error().message());
        }
        long at = BackingLogLayout.DATA_OFFSET_BYTES;
        for (BackingLogRecord record : records.value()) {
            long from = record.volumeSector() * BlockDevice.SECTOR_BYTES;
            long length = (long) record.lengthSectors() * BlockDevice.SECTOR_BYTES;
            long end = Math.min(volume.capacity(), from + length);
            if (from < end) {
                volume.put((int) from, log, (int) at, (int) (end - from));
            }
            at += BackingLogLayout.recordSlotBytes(record.lengthSectors());
        }
        return new Result(commit, null);
    }
}
