package io.blockcache.sim;

import io.blockcache.device.BlockDevice;
import io.blockcache.loop.EventLoop;
import io.blockcache.loop.Prng;
import java.nio.ByteBuffer;
import java.util.BitSet;

/**
 * A simulated {@link BlockDevice} that can lose power and come back.
 *
 * <p>Life cycle: a device runs on one loop; {@link #crash} cuts the power (the device is then off and
 * completes new submissions with {@code CLOSED}); {@link #powerOn} brings the <em>same instance</em> back
 * on a loop you pass in (normally a fresh {@code SimLoop}), with an empty queue and cache and fresh
 * counters, holding exactly the crash image as its contents.
 *
 * <p>Thread rule: the simulation driver's thread.
 */
public interface SimDevice extends BlockDevice {
    /**
     * Cuts the power. Requests in flight are dropped without callbacks (events already scheduled for them
     * on the old loop do nothing). Each write not covered by a completed flush and not completed with FUA
     * (in flight or in the volatile cache) independently survives, vanishes, or survives torn at 512-byte
     * granularity, chosen from {@code fate}; the survivors land in any order a real device could have
     * produced (see {@code DurabilityTracker#crash}); the result is the durable contents.
     *
     * @return how many writes met each fate
     */
    CrashOutcome crash(Prng fate);

    /**
     * Cuts the power as {@link #crash(Prng)} does, but with the fates chosen by the caller (crash-point
     * enumeration): of the {@link #pendingWriteCount()} writes not yet durable, in issue order, the one at index
     * {@code i} survives whole if {@code survivors.get(i)} and vanishes otherwise; none tears. The survivors land
     * in issue order, never over data that must stay in front of them (see {@code DurabilityTracker#crash}).
     *
     * @return how many writes survived and vanished
     */
    CrashOutcome crash(BitSet survivors);

    /**
     * Writes submitted but not yet durable (in flight or in the volatile cache): what a crash now would expose,
     * and the index range of {@link #crash(BitSet)}'s survivors.
     */
    int pendingWriteCount();

    /** Powers the device on after {@link #crash}, running on {@code loop} from now on. */
    void powerOn(EventLoop loop);

    /**
     * Makes each flush fail with {@code probability}, drawn from {@code prng} (0: never): a failed flush loses
     * some of the volatile writes it covered and reports the error to its own caller only.
     */
    void setFlushFailures(Prng prng, double probability);

    /** Flushes failed on purpose so far. */
    long flushesFailed();

    /**
     * Copies what a read would return now (every completed write, flushed or not) into {@code dst}, at once: no
     * time passes, no counter moves, no event is scheduled. For oracles that look at a device in the middle of a
     * run without changing it (the fuzz's prefix oracle).
     */
    void peek(long offsetBytes, ByteBuffer dst);
}
