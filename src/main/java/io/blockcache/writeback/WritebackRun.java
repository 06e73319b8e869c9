package io.blockcache.writeback;

import io.blockcache.device.BlockDevice;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * LBA-adjacent keys of one pass that go to the backing device as one write: their cache reads fill slices of
 * one buffer, and the write is issued once every read is in.
 *
 * <p>Thread rule: the loop thread.
 */
final class WritebackRun {
    final long sequence;
    final List<DirtyKey> keys;
    final long startSector;
    final int lengthSectors;
    ByteBuffer data;
    io.blockcache.volume.BackingWriteSlot slot;
    int readsPending;
    String failure;

    private WritebackRun(long sequence, List<DirtyKey> keys) {
        this.sequence = sequence;
        this.keys = keys;
        this.startSector = keys.get(0).startSector();
        DirtyKey last = keys.get(keys.size() - 1);
        this.lengthSectors = (int) (last.endSector() - startSector);
        this.readsPending = keys.size();
    }

    /** Allocates the buffer; called just before the reads are issued, so planned runs cost no memory. */
    ByteBuffer allocate() {
        data = ByteBuffer.allocate(lengthSectors * BlockDevice.SECTOR_BYTES);
        return data;
    }

    /** The slice of the buffer that {@code key} fills. */
    ByteBuffer sliceFor(DirtyKey key) {
        int from = (int) (key.startSector() - startSector) * BlockDevice.SECTOR_BYTES;
        return data.duplicate().position(from).limit(from + key.lengthSectors() * BlockDevice.SECTOR_BYTES).slice();
    }

    /** One run per key, in issue order, sequence numbers from {@code firstSequence}: no merging (classic). */
    static List<WritebackRun> onePerKey(List<DirtyKey> ordered, long firstSequence) {
        List<WritebackRun> runs = new ArrayList<>(ordered.size());
        for (DirtyKey key : ordered) {
            runs.add(new WritebackRun(firstSequence + runs.size(), List.of(key)));
        }
        return runs;
    }

    /**
     * Cuts keys, in issue order, into runs: a key joins the run before it when it starts where that run ends
     * and the run stays within {@code maxSectors}; sequence numbers follow from {@code firstSequence}.
     */
    static List<WritebackRun> plan(List<DirtyKey> ordered, int maxSectors, long firstSequence) {
        List<WritebackRun> runs = new ArrayList<>();
        List<DirtyKey> current = new ArrayList<>();
        long end = -1;
        long sectors = 0;
        for (DirtyKey key : ordered) {
            if (!current.isEmpty() && (key.startSector() != end || sectors + key.lengthSectors() > maxSectors)) {
                runs.add(new WritebackRun(firstSequence + runs.size(), current));
                current = new ArrayList<>();
                sectors = 0;
            }
            current.add(key);
            end = key.endSector();
            sectors += key.lengthSectors();
        }
        if (!current.isEmpty()) {
            runs.add(new WritebackRun(firstSequence + runs.size(), current));
        }
        return runs;
    }
}
