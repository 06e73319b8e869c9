package io.blockcache.format;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * Open-time checks of a backing device against what the cache superblock expects. Each refusal says what
 * was found and what was expected, so an operator can tell a swapped cable from a resized LUN.
 */
public final class AttachCheck {
    /** Why a backing device is refused. */
    public enum Reason {
        /** The header at byte 0 is missing or damaged. */
        UNREADABLE_HEADER,
        /** The device is a different backing device than the one recorded in the superblock. */
        WRONG_DEVICE,
        /** The device belongs to another cache set. */
        OTHER_CACHE_SET,
        /** The device's size or geometry no longer matches what was recorded. */
        RESIZED
    }

    /** One refusal. @param reason its class @param message what was found and what was expected */
    public record Refusal(Reason reason, String message) {
        public Refusal {
            Objects.requireNonNull(reason, "reason");
            Objects.requireNonNull(message, "message");
        }
    }

    private AttachCheck() {
    }

    /**
     * Checks the decoded header of a device against the superblock's record of it.
     *
     * @param decoded the result of {@link BackingHeader#decode} on the device's first 4 KiB
     * @param expected the superblock's slot for the volume being opened
     * @param cacheSetUuid the opening cache set's uuid
     * @param deviceSizeBytes the device's (or file's) current size in bytes
     * @return every refusal found, in the order of {@link Reason}; empty if the device may be attached
     */
    public static List<Refusal> check(DecodeResult<BackingHeader> decoded, AttachedBacking expected,
            UUID cacheSetUuid, long deviceSizeBytes) {
        List<Refusal> refusals = new ArrayList<>();
        if (!decoded.isOk()) {
            refusals.add(new Refusal(Reason.UNREADABLE_HEADER, "backing device for volume "
                    + expected.volumeId() + " (\"" + expected.exportName() + "\"): header is not readable: "
                    + decoded.error()));
            return refusals;
        }
        BackingHeader found = decoded.value();
        String who = "backing device for volume " + expected.volumeId() + " (\"" + expected.exportName() + "\")";
        if (!found.backingUuid().equals(expected.backingUuid())) {
            refusals.add(new Refusal(Reason.WRONG_DEVICE, who + " is the wrong device: found backing uuid "
                    + found.backingUuid() + ", expected " + expected.backingUuid()));
        }
        if (!found.cacheSetUuid().equals(cacheSetUuid)) {
            refusals.add(new Refusal(Reason.OTHER_CACHE_SET, who + " belongs to another cache set: found cache set "
                    + found.cacheSetUuid() + ", expected " + cacheSetUuid));
        }
        long expectedDeviceBytes = expected.dataOffsetBytes() + expected.volumeSizeBytes();
        // The slot has no log field: a data offset past the header's MiB is the log (FORMAT.md §4.4).
        long expectedLogBytes = Math.max(0, expected.dataOffsetBytes() - BackingHeader.LOG_OFFSET_BYTES);
        // A device larger than its volume needs is a grow not (yet) committed, or one done ahead of `volume resize`:
        // the volume keeps its place and size. A header smaller than the slot is a grow committed in the superblock
        // whose header write did not happen: the open finishes it (headerBehind). FORMAT.md §3, "Volumes attached
        // and detached live".
        boolean sizeFits = found.volumeSizeBytes() == expected.volumeSizeBytes() || headerBehind(found, expected);
        if (found.dataOffsetBytes() != expected.dataOffsetBytes()
                || !sizeFits
                || found.logSizeBytes() != expectedLogBytes
                || deviceSizeBytes < expectedDeviceBytes) {
            refusals.add(new Refusal(Reason.RESIZED, who + " was resized: found device size " + deviceSizeBytes
                    + " bytes (header: dataOffsetBytes " + found.dataOffsetBytes() + " + volumeSizeBytes "
                    + found.volumeSizeBytes() + ", logSizeBytes " + found.logSizeBytes() + "), expected "
                    + expectedDeviceBytes + " bytes (dataOffsetBytes " + expected.dataOffsetBytes()
                    + " + volumeSizeBytes " + expected.volumeSizeBytes() + ", logSizeBytes " + expectedLogBytes + ")"));
        }
        return refusals;
    }

    /**
     * True if {@code found} is the header of {@code expected}'s device from before a grow the superblock already
     * records (a smaller volume, everything else the same): the open rewrites it with the slot's size.
     */
    public static boolean headerBehind(BackingHeader found, AttachedBacking expected) {
        return found.backingUuid().equals(expected.backingUuid())
                && found.dataOffsetBytes() == expected.dataOffsetBytes()
                && found.volumeSizeBytes() < expected.volumeSizeBytes();
    }
}
