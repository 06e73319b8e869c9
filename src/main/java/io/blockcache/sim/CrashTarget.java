package io.blockcache.sim;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.IoCallback;
import io.blockcache.loop.Prng;

/**
 * Something that behaves like a block device and can lose power: a raw simulated device, or a whole cache set
 * serving a volume. The crash harness ({@link CrashScenario}) drives any of them the same way.
 *
 * <p>Life cycle: {@link #start} once; then the workload talks to {@link #device()}; {@link #crash} cuts the
 * power at any moment (also during {@link #recover}); {@link #recover} powers on and reopens, after which
 * {@link #device()} may return a new instance. Thread rule: the simulation driver's thread; callbacks run on
 * the target's loop.
 */
public interface CrashTarget {
    /** Brings the target up for the first time (e.g. format + open); {@code done} gets OK or an error. */
    void start(IoCallback done);

    /** The device the workload talks to now. */
    BlockDevice device();

    /** Makes a range read as zeroes; a plain device writes a zero buffer, a volume uses its write-zeroes. */
    void writeZeroes(long offsetBytes, long lengthBytes, boolean fua, IoCallback done);

    /**
     * True if overlapping writes may be in flight together because a later submission always wins; false for
     * a plain device, whose overlapping in-flight writes may land in either order (the harness then holds
     * back a mutation until the overlapping ones complete).
     */
    boolean newestSubmissionWins();

    /**
     * Power cut: pending loop events are dropped and every device keeps only its crash image, chosen from
     * {@code fate}. Callbacks of requests in flight never run.
     */
    void crash(Prng fate);

    /** Powers on and reopens after {@link #crash}; {@code done} gets OK or an error saying why not. */
    void recover(IoCallback done);
}
