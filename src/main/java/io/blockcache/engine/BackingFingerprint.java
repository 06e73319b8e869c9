package io.blockcache.engine;

import io.blockcache.device.BlockDevice;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.function.Consumer;

/**
 * The identity of a backing device cached in place (docs/FORMAT.md §4.2), which carries no header: the first
 * 8 bytes of a SHA-256 over its size and {@link #SAMPLES} sampled 4 KiB blocks (the first, the last, and evenly
 * spaced ones between). Cheap (a few reads, also over a remote NBD export), and what tells a swapped disk or
 * another export from this one; it also catches a write behind the cache's back that hits a sampled block, and
 * nothing else (docs/FORMAT.md §4.2 says what that means). Device names, paths and NBD export names are not in
 * it: the same disk may be reached under another one.
 *
 * <p>Thread rule: the device's loop; the answer comes through {@code done}.
 */
final class BackingFingerprint {
    /** Sampled blocks: enough to tell two devices of the same size apart, few enough to take a moment. */
    static final int SAMPLES = 8;
    static final int BLOCK_BYTES = 4096;
    /** The smallest device cached in place: one sample block. */
    static final long DEVICE_BYTES_MIN = BLOCK_BYTES;

    private final BlockDevice device;
    private final MessageDigest digest;
    private final Consumer<Outcome<Long>> done;

    private BackingFingerprint(BlockDevice device, Consumer<Outcome<Long>> done) {
        this.device = device;
        this.done = done;
        try {
            this.digest = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /** Reads the samples of {@code device} and hands {@code done} the fingerprint, or why it could not. */
    static void of(BlockDevice device, Consumer<Outcome<Long>> done) {
        BackingFingerprint fingerprint = new BackingFingerprint(device, done);
        fingerprint.digest.update(ByteBuffer.allocate(Long.BYTES).order(ByteOrder.LITTLE_ENDIAN)
                .putLong(0, device.sizeBytes()));
        fingerprint.sample(0);
    }

    /** Where sample {@code index} starts: 4 KiB aligned, the last one ending at or before the device end. */
    static long sampleOffsetBytes(long deviceBytes, int index) {
        long lastBlockStart = (deviceBytes - BLOCK_BYTES) / BLOCK_BYTES * BLOCK_BYTES;
        return lastBlockStart / BLOCK_BYTES * index / (SAMPLES - 1) * BLOCK_BYTES;
    }

    private void sample(int index) {
        if (index == SAMPLES) {
            done.accept(Outcome.ok(ByteBuffer.wrap(digest.digest()).getLong()));
            return;
        }
        long offsetBytes = sampleOffsetBytes(device.sizeBytes(), index);
        DeviceBytes.read(device, offsetBytes, BLOCK_BYTES, read -> {
            if (!read.isOk()) {
                done.accept(Outcome.failed("reading the fingerprint sample at byte " + offsetBytes + " failed: "
                        + read.error()));
                return;
            }
            digest.update(read.value());
            sample(index + 1);
        });
    }
}
