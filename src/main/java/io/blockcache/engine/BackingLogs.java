package io.blockcache.engine;

import io.blockcache.backinglog.BackingLogRegion;
import io.blockcache.format.AttachedBacking;
import io.blockcache.format.BackingHeader;
import io.blockcache.format.BackingLogLayout;

/** Where a backing device's log is, from its superblock slot (docs/FORMAT.md §4.4). Stateless. */
final class BackingLogs {
    private BackingLogs() {
    }

    /**
     * The log of the backing device in {@code slot}, or null if it has none. The slot has no log field: a data offset
     * past the header's MiB is the log ({@code AttachCheck} refused a header that says otherwise).
     */
    static BackingLogRegion region(AttachedBacking slot) {
        if (slot.inPlace() || slot.dataOffsetBytes() <= BackingHeader.LOG_OFFSET_BYTES) {
            return null;
        }
        return new BackingLogRegion(slot.backingUuid(),
                new BackingLogLayout(slot.dataOffsetBytes() - BackingHeader.LOG_OFFSET_BYTES), slot.dataOffsetBytes(),
                slot.volumeSizeBytes());
    }
}
