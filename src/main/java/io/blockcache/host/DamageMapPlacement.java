package io.blockcache.host;

import java.util.Locale;

/**
 * Where each backing device's damage map lives (docs/WRITEBACK.md "Where the map lives"; docs/FORMAT.md §4.1): the
 * trade-off between surviving the loss of the whole node and staying writable while the backing device is away.
 */
public enum DamageMapPlacement {
    /** No damage map: after a cache loss nothing says which ranges of the backing device are stale. */
    OFF,
    /**
     * On the backing device, between its header and its data: travels with the device and survives the loss of the
     * node, but a write into a region not yet marked fails while the backing device is unreachable.
     */
    BACKING,
    /**
     * In a small file in the data directory ({@link #fileName}), fsync'd (FUA) like the map on a device: survives
     * the loss of the cache device but not of the node; writes never need the backing device (while the
     * remote is away, dirty data stays in the cache). The default of {@code serve}.
     */
    FILE;

    /** The map file of export {@code exportName} in the data directory (placement {@link #FILE}). */
    public static String fileName(String exportName) {
        return "damage-map-" + exportName + ".img";
    }

    /** The export whose map file is named {@code fileName} ({@link #fileName}), or null for any other name. */
    public static String exportNameOf(String fileName) {
        String prefix = "damage-map-";
        String suffix = ".img";
        if (!fileName.startsWith(prefix) || !fileName.endsWith(suffix)
                || fileName.length() == prefix.length() + suffix.length()) {
            return null;
        }
        return fileName.substring(prefix.length(), fileName.length() - suffix.length());
    }

    /** As the configuration writes it. */
    public String text() {
        return name().toLowerCase(Locale.ROOT);
    }
}
