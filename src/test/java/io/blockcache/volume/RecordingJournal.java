package io.blockcache.volume;

import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import io.blockcache.journal.MetadataJournal;
import io.blockcache.loop.EventLoop;
import java.util.ArrayList;
import java.util.List;

/** A journal for volume tests: records what was appended, commits instantly (or fails on request). */
final class RecordingJournal implements MetadataJournal {
    final List<String> records = new ArrayList<>();
    int commits;
    boolean failCommits;
    Runnable onRemove = () -> { };
    private final EventLoop loop;
    private long sequence = 1;
    private long durable;

    RecordingJournal(EventLoop loop) {
        this.loop = loop;
    }

    @Override
    public long appendInsert(int volumeId, long startSector, int lengthSectors, int bucket, int offsetInBucketSectors,
                             int generation, boolean dirty, int crc32c, int crcCutHeadSectors, int crcLengthSectors,
                             long epoch) {
        records.add("insert " + startSector + "+" + lengthSectors + (dirty ? " dirty" : " clean"));
        return sequence;
    }

    @Override
    public long appendRemove(int volumeId, long startSector, int lengthSectors) {
        onRemove.run();
        records.add("remove " + startSector + "+" + lengthSectors);
        return sequence;
    }

    @Override
    public long appendClean(int volumeId, long startSector, int lengthSectors, int bucket, int offsetInBucketSectors,
                            int generation) {
        records.add("clean " + startSector + "+" + lengthSectors);
        return sequence;
    }

    @Override
    public long appendBlockCrcs(int bucket, int generation, int firstBlock, int count, int[] crcs, int from) {
        records.add("block crcs " + bucket + ":" + firstBlock + "+" + count);
        return sequence;
    }

    @Override
    public long appendEpochsVoid(int volumeId) {
        records.add("epochs void");
        return sequence;
    }

    @Override
    public long recordGeneration(int bucket, int generation) {
        records.add("generation " + bucket + "=" + generation);
        return sequence;
    }

    @Override
    public void commit(IoCallback callback) {
        commits++;
        boolean fail = failCommits;
        long committed = sequence++;
        loop.execute(() -> {
            if (fail) {
                callback.complete(IoResult.error(IoStatus.IO_ERROR, "injected journal failure"));
            } else {
                durable = committed;
                callback.complete(IoResult.OK);
            }
        });
    }

    @Override
    public long durableSequence() {
        return durable;
    }
}
