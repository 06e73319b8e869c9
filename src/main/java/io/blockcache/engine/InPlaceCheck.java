package io.blockcache.engine;

import io.blockcache.device.BlockDevice;
import io.blockcache.format.AttachedBacking;
import java.util.function.Consumer;

/**
 * The open-time identity check of a backing device cached in place (docs/FORMAT.md §4.2), which has no header to
 * read: its size must equal the volume size, and after a clean stop its {@link BackingFingerprint} must equal the
 * one the clean stop recorded. After an unclean stop the fingerprint cannot be checked (writeback may have
 * written a sampled block after it was taken), so only the size is; every clean cached copy is distrusted then
 * anyway (FORMAT.md §7 rule 10), so the cache serves nothing of the device it did not write itself.
 *
 * <p>Thread rule: the loop; the answer (null, or the refusal) comes through {@code done}.
 */
final class InPlaceCheck {
    private InPlaceCheck() {
    }

    /** Checks {@code device} against {@code expected}; hands {@code done} null if it may be attached. */
    static void check(BlockDevice device, AttachedBacking expected, boolean cleanShutdown, Consumer<String> done) {
        String who = "backing device for volume " + expected.volumeId() + " (\"" + expected.exportName()
                + "\", cached in place)";
        if (device.sizeBytes() != expected.volumeSizeBytes()) {
            done.accept(who + " was resized: found device size " + device.sizeBytes() + " bytes, expected "
                    + expected.volumeSizeBytes() + " bytes");
            return;
        }
        if (!cleanShutdown) {
            done.accept(null);
            return;
        }
        BackingFingerprint.of(device, fingerprint -> {
            if (!fingerprint.isOk()) {
                done.accept(who + ": " + fingerprint.error());
            } else if (fingerprint.value() != expected.fingerprint()) {
                done.accept(who + " is not as the cache left it: its fingerprint (size and sampled blocks) is "
                        + Long.toHexString(fingerprint.value()) + ", expected " + Long.toHexString(
                        expected.fingerprint()) + ". It is another device, or it was written behind the cache's"
                        + " back, and clean cached copies of it would be stale. If it is the right device, format"
                        + " the cache again (format --in-place --force; the cache stopped clean, but any dirty"
                        + " data still in it is lost)");
            } else {
                done.accept(null);
            }
        });
    }
}
