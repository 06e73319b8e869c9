package io.blockcache.engine;

import io.blockcache.device.BlockDevice;
import io.blockcache.format.BackingHeader;
import java.util.Objects;

/**
 * A backing device to format or open, and the name its volume is exported under.
 *
 * @param name export name, 1..63 bytes of UTF-8, unique in the cache set
 * @param device the whole backing device; its first {@code 1 MiB} holds the backing header, unless in place
 * @param inPlace at format: cache the device in place (docs/FORMAT.md §4.2): write nothing on it, export all of it,
 *     identify it by size and fingerprint; at open the superblock decides and this is ignored
 * @param mapDevice at open, with the damage map on ({@link CacheSetOptions#damageMap}): where the map lives instead of
 *     on the backing device (placement {@code file}, docs/WRITEBACK.md "Where the map lives"): a small device laid
 *     out as the backing device's first {@code dataOffsetBytes}, a copy of its header then the map, at least that
 *     large; null keeps the map on the backing device itself
 * @param logSizeBytes at format: the size of the backing log journaled write-back needs (docs/FORMAT.md §4.4), a
 *     whole number of MiB, 0 for none; not with {@code inPlace}; at open the header decides and this is ignored
 */
public record BackingSpec(String name, BlockDevice device, boolean inPlace, BlockDevice mapDevice,
                          long logSizeBytes) {
    public BackingSpec {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(device, "device");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("a backing device needs a non-empty export name");
        }
        if (logSizeBytes < 0 || logSizeBytes % BackingHeader.LOG_SIZE_UNIT_BYTES != 0
                || (inPlace && logSizeBytes > 0)) {
            throw new IllegalArgumentException("a backing log is a whole number of MiB, and a backing cached in place"
                    + " has none (it carries nothing of the cache): " + logSizeBytes + " bytes for \"" + name + "\"");
        }
    }

    /** A backing device, in place or not, with its damage map on {@code mapDevice} (null: on itself), no log. */
    public BackingSpec(String name, BlockDevice device, boolean inPlace, BlockDevice mapDevice) {
        this(name, device, inPlace, mapDevice, 0);
    }

    /** A backing device with a header (the default). */
    public BackingSpec(String name, BlockDevice device) {
        this(name, device, false, null);
    }

    /** A backing device, in place or not, whose damage map (if on) lives on it. */
    public BackingSpec(String name, BlockDevice device, boolean inPlace) {
        this(name, device, inPlace, null);
    }

    /** This spec with its damage map on {@code map} (null: on the backing device). */
    public BackingSpec withMapDevice(BlockDevice map) {
        return new BackingSpec(name, device, inPlace, map, logSizeBytes);
    }

    /** This spec with a backing log of {@code bytes} (format only). */
    public BackingSpec withLogSizeBytes(long bytes) {
        return new BackingSpec(name, device, inPlace, mapDevice, bytes);
    }
}
