package io.blockcache.bench;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.IoResult;
import io.blockcache.loop.EventLoop;
import io.blockcache.loop.Prng;
import java.nio.ByteBuffer;
import org.HdrHistogram.Histogram;

/**
 * A closed-loop front end: {@code depth} requests always in flight against a block device (a volume), each a
 * random 4 KiB read or write inside {@code [0, blocks)}; a completion records its latency in loop time and
 * submits the next request. Loop time is real time on a {@code RealLoop} and virtual time on a {@code SimLoop}.
 *
 * <p>Every write carries a tag, {@code version << 32 | block} in its first 8 bytes, and the workload keeps the
 * newest acknowledged version per block ({@link #version}), so an experiment can read everything back and
 * prove that no acknowledged write was lost.
 *
 * <p>Thread rule: every method on the loop's thread.
 */
final class RandomIoWorkload {
    /** Request size: 4 KiB, the block size of the experiments. */
    static final int BLOCK_BYTES = 4096;
    /** Latency recorded up to 1 hour with 3 significant digits (simulated throttling can be long). */
    static final long LATENCY_NS_MAX = 3_600_000_000_000L;

    private final EventLoop loop;
    private final BlockDevice device;
    private final long blocks;
    private final int readPercent;
    private final Prng prng;
    private final int[] versions;
    private final ByteBuffer[] buffers;
    /** Per slot: the block its write in flight targets, -1 for none (two writes to one block never overlap). */
    private final long[] writingBlock;
    private int versionNext = 1;
    private int inFlight;
    private boolean running;
    private long writesCompleted;
    private long errors;
    private String firstError;
    private Histogram recording;
    private LatencyTimeline timeline;
    private Runnable onIdle;
    private long recordStartedBeforeNs = Long.MAX_VALUE;
    private int recordPending;
    private Runnable onRecordDone;

    /**
     * @param blocks the 4 KiB blocks the requests are drawn from
     * @param depth requests kept in flight (queue depth)
     * @param readPercent share of reads, 0..100
     */
    RandomIoWorkload(EventLoop loop, BlockDevice device, long blocks, int depth, int readPercent, Prng prng) {
        if (blocks <= 0 || blocks > Integer.MAX_VALUE || depth < 1 || depth > 256 || readPercent < 0
                || readPercent > 100) {
            throw new IllegalArgumentException("blocks in [1, 2^31), depth in [1, 256], readPercent in [0, 100]: "
                    + blocks + ", " + depth + ", " + readPercent);
        }
        this.loop = loop;
        this.device = device;
        this.blocks = blocks;
        this.readPercent = readPercent;
        this.prng = prng;
        this.versions = new int[(int) blocks];
        this.buffers = new ByteBuffer[depth];
        this.writingBlock = new long[depth];
        java.util.Arrays.fill(writingBlock, -1);
        for (int i = 0; i < depth; i++) {
            buffers[i] = ByteBuffer.allocate(BLOCK_BYTES);
        }
    }

    /** Starts {@code depth} requests. */
    void start() {
        running = true;
        for (int slot = 0; slot < buffers.length; slot++) {
            submit(slot);
        }
    }

    /** Stops submitting; {@code idle} runs once every request in flight has completed. */
    void stop(Runnable idle) {
        running = false;
        onIdle = idle;
        if (inFlight == 0) {
            loop.execute(idle);
        }
    }

    /**
     * Ends a recording window: from now on only requests already in flight are recorded (they overlapped the
     * window), and once the last of them has completed, recording stops and {@code done} runs. A window shorter
     * than one request would otherwise record nothing at all.
     */
    void finishRecording(Runnable done) {
        recordStartedBeforeNs = loop.nowNs();
        recordPending = inFlight;
        onRecordDone = done;
        if (recordPending == 0) {
            endRecording();
        }
    }

    private void endRecording() {
        recording = null;
        timeline = null;
        recordStartedBeforeNs = Long.MAX_VALUE;
        Runnable done = onRecordDone;
        onRecordDone = null;
        done.run();
    }

    /** Records every later completion's latency into {@code histogram} (null: record nothing). */
    void recordInto(Histogram histogram) {
        recording = histogram;
    }

    /** Also records every later completion into {@code newTimeline} (null: none). */
    void timeline(LatencyTimeline newTimeline) {
        timeline = newTimeline;
    }

    /** Writes acknowledged so far. */
    long writesCompleted() {
        return writesCompleted;
    }

    /** Requests answered with an error so far. */
    long errors() {
        return errors;
    }

    /** The first error, or null. */
    String firstError() {
        return firstError;
    }

    /** The newest acknowledged version of {@code block}, 0 if never written. */
    int version(long block) {
        return versions[(int) block];
    }

    /** The tag a write of {@code version} to {@code block} carries in its first 8 bytes. */
    static long tag(long block, int version) {
        return (long) version << 32 | block;
    }

    private void submit(int slot) {
        boolean read = prng.nextInt(100) < readPercent;
        long block = prng.nextLong(blocks);
        while (!read && writing(block)) {
            block = prng.nextLong(blocks); // the order of two overlapping writes in flight is undefined
        }
        ByteBuffer buffer = buffers[slot].clear();
        long startNs = loop.nowNs();
        inFlight++;
        long chosen = block;
        if (read) {
            device.read(block * BLOCK_BYTES, buffer, result -> completed(slot, chosen, 0, startNs, result));
        } else {
            writingBlock[slot] = block;
            int version = versionNext++;
            buffer.putLong(0, tag(block, version));
            device.write(block * BLOCK_BYTES, buffer, false,
                    result -> completed(slot, chosen, version, startNs, result));
        }
    }

    private boolean writing(long block) {
        for (long other : writingBlock) {
            if (other == block) {
                return true;
            }
        }
        return false;
    }

    private void completed(int slot, long block, int version, long startNs, IoResult result) {
        inFlight--;
        writingBlock[slot] = -1;
        long latencyNs = loop.nowNs() - startNs;
        if (!result.ok()) {
            errors++;
            if (firstError == null) {
                firstError = result.toString();
            }
        } else if (version != 0) {
            writesCompleted++;
            versions[(int) block] = version;
        }
        boolean inWindow = startNs < recordStartedBeforeNs;
        if (recording != null && inWindow) {
            recording.recordValue(Math.min(LATENCY_NS_MAX, Math.max(1, latencyNs)));
        }
        if (timeline != null && inWindow) {
            timeline.record(loop.nowNs(), latencyNs);
        }
        if (onRecordDone != null && inWindow && --recordPending == 0) {
            endRecording();
        }
        if (running) {
            submit(slot);
        } else if (inFlight == 0 && onIdle != null) {
            Runnable idle = onIdle;
            onIdle = null;
            idle.run();
        }
    }
}
