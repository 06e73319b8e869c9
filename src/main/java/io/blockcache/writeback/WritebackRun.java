package io.blockcache.writeback;

import io.blockcache.device.BlockDevice;
import io.blockcache.loop.Checks;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * LBA-adjacent keys of one pass that go to the backing device as one write: their cache reads fill slices of
 * one buffer, and the write is issued once every read is in. On an object store a run may be a whole chunk: then
 * clean cached pieces ({@link ChunkPlanner.Fill}) are read into its gaps too, and runs of a chunk are written with
 * FUA and report their end to the chunk ({@link #onEnd}).
 *
 * <p>Thread rule: the loop thread.
 */
final class WritebackRun {
    final long sequence;
    final List<DirtyKey> keys;
    final List<ChunkPlanner.Fill> fills;
    final long startSector;
    final int lengthSectors;
    final boolean fua;
    /** Told after the run's end was reported (a chunk counts its runs); null for disk runs. */
    Runnable onEnd;
    ByteBuffer data;
    io.blockcache.volume.BackingWriteSlot slot;
    int readsPending;
    String failure;

    private WritebackRun(long sequence, List<DirtyKey> keys) {
        this(sequence, keys, List.of(), keys.get(0).startSector(),
                (int) (keys.get(keys.size() - 1).endSector() - keys.get(0).startSector()), false);
    }

    private WritebackRun(long sequence, List<DirtyKey> keys, List<ChunkPlanner.Fill> fills, long startSector,
                         int lengthSectors, boolean fua) {
        this.sequence = sequence;
        this.keys = keys;
        this.fills = fills;
        this.startSector = startSector;
        this.lengthSectors = lengthSectors;
        this.fua = fua;
        this.readsPending = keys.size() + fills.size();
        long coveredSectors = 0;
        for (DirtyKey key : keys) {
            coveredSectors += key.lengthSectors();
        }
        for (ChunkPlanner.Fill fill : fills) {
            coveredSectors += fill.lengthSectors();
        }
        // The buffer is not zeroed (RunBuffers): its reads must cover every sector the run writes.
        Checks.require(coveredSectors == lengthSectors,
                "run at sector %d of %d sectors is covered by %d sectors of reads", startSector, lengthSectors,
                coveredSectors);
    }

    /** Takes the buffer; called just before the reads are issued, so planned runs cost no memory. */
    ByteBuffer allocate(RunBuffers buffers) {
        data = buffers.take(lengthSectors * BlockDevice.SECTOR_BYTES);
        return data;
    }

    /** Gives the buffer back once no device holds it any more (the backing write completed, or never started). */
    void release(RunBuffers buffers) {
        buffers.give(data);
        data = null;
    }

    /** The slice of the buffer that {@code key} fills. */
    ByteBuffer sliceFor(DirtyKey key) {
        return sliceFor(key.startSector(), key.lengthSectors());
    }

    /** The slice of the buffer for {@code [pieceStartSector, + pieceSectors)}. */
    ByteBuffer sliceFor(long pieceStartSector, int pieceSectors) {
        int from = (int) (pieceStartSector - startSector) * BlockDevice.SECTOR_BYTES;
        return data.duplicate().position(from).limit(from + pieceSectors * BlockDevice.SECTOR_BYTES).slice();
    }

    /**
     * The runs of one chunk's plan, sequence numbers from {@code firstSequence}, all with FUA (on an object store a
     * write is then done when its chunk is stored, so no later flush waits for it): one run of the whole chunk with
     * its fills if the plan is whole, else its keys merged into runs of LBA-adjacent keys.
     */
    static List<WritebackRun> chunk(ChunkPlanner.Plan plan, long firstSequence) {
        if (plan.whole()) {
            return List.of(new WritebackRun(firstSequence, plan.keys(), plan.fills(), plan.startSector(),
                    plan.lengthSectors(), true));
        }
        List<WritebackRun> runs = new ArrayList<>();
        for (WritebackRun merged : plan(plan.keys(), plan.lengthSectors(), firstSequence)) {
            runs.add(new WritebackRun(merged.sequence, merged.keys, List.of(), merged.startSector,
                    merged.lengthSectors, true));
        }
        return runs;
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
