package io.blockcache.engine;

import io.blockcache.device.BlockDevice;
import io.blockcache.format.DamageMapGeometry;
import io.blockcache.loop.EventLoop;
import io.blockcache.volume.DamageMap;
import java.util.UUID;

/**
 * What open read of one volume's damage map (docs/FORMAT.md §4.1), and what must be written before the map is
 * trusted, for either placement (docs/WRITEBACK.md "Where the map lives"): on the backing device, or in a map file.
 *
 * @param area the map area as read from where the map lives (zeros when the map file is new or belongs to another
 *     backing device: then every block is written at open)
 * @param fileHeader for a map file whose header is not the backing device's: the backing header to copy into it, so
 *     that {@code check --damage} can read the file alone; else null
 * @param clearBackingMap with the map in a file: the backing device still holds valid map blocks from when the map
 *     lived there, which would go stale; they are zeroed at open (a reader then lists everything as stale, never
 *     less than the truth)
 */
record DamageMapSource(byte[] area, byte[] fileHeader, boolean clearBackingMap) {
    /** A map on the backing device itself, as read. */
    static DamageMapSource onBacking(byte[] area) {
        return new DamageMapSource(area, null, false);
    }

    /** The volume's map, on {@code mapDevice} if not null, else on {@code backing}. */
    DamageMap open(EventLoop loop, BlockDevice backing, BlockDevice mapDevice, UUID backingUuid,
                   DamageMapGeometry geometry, long volumeSizeBytes) {
        DamageMap map = new DamageMap(loop, mapDevice == null ? backing : mapDevice, backingUuid, geometry,
                volumeSizeBytes, area);
        if (fileHeader != null) {
            map.writeAtOpen(mapDevice, 0, fileHeader);
        }
        if (clearBackingMap) {
            map.writeAtOpen(backing, DamageMapGeometry.FIRST_BLOCK_OFFSET_BYTES, new byte[geometry.areaBytes()]);
        }
        return map;
    }
}
