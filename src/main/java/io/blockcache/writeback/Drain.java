package io.blockcache.writeback;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.IoCallback;
import java.util.function.Consumer;

/**
 * One drain in progress (see {@link Writeback#drain}): whom to tell, and where it started so that progress
 * reports can give the rate and an estimate of the time left.
 *
 * @param cleanedAtStartSectors the engine's sectors-cleaned counter when the drain started
 * @param startNs loop time when the drain started
 */
record Drain(Consumer<DrainProgress> listener, IoCallback done, long cleanedAtStartSectors, long startNs) {
    /** Tells the listener how far the drain got; {@code finished} once nothing is dirty or in flight. */
    void report(long dirtySectors, long cleanedSectors, long nowNs, boolean finished) {
        long writtenBack = (cleanedSectors - cleanedAtStartSectors) * BlockDevice.SECTOR_BYTES;
        double seconds = (nowNs - startNs) / 1e9;
        double bytesPerSecond = seconds > 0 ? writtenBack / seconds : 0;
        long left = dirtySectors * BlockDevice.SECTOR_BYTES;
        long etaNs = bytesPerSecond > 0 ? (long) (left / bytesPerSecond * 1e9) : (left == 0 ? 0 : -1);
        listener.accept(new DrainProgress(left, writtenBack, bytesPerSecond, etaNs, finished));
    }
}
