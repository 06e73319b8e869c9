package io.blockcache.engine;

import io.blockcache.cache.CacheSpace;
import io.blockcache.device.BlockDevice;
import io.blockcache.device.FencedDevice;
import io.blockcache.device.StickyFlushDevice;
import io.blockcache.format.AttachedBacking;
import io.blockcache.format.DamageMapGeometry;
import io.blockcache.journal.JournalWriter;
import io.blockcache.loop.EventLoop;
import io.blockcache.volume.CacheMode;
import io.blockcache.volume.CoveredWriteGate;
import io.blockcache.volume.CoveredWrites;
import io.blockcache.volume.DamageMap;
import io.blockcache.volume.Volume;
import io.blockcache.volume.VolumeConfig;
import io.blockcache.volume.VolumeIndex;

/**
 * How one volume is built from its superblock slot: the same at open ({@link CacheSetBuilder}) and when a volume is
 * attached to a running cache ({@link VolumeAttacher}), so that an attached volume is exactly what the next open
 * makes of it.
 *
 * <p>Thread rule: the cache set's loop thread.
 */
final class VolumeWiring {
    private VolumeWiring() {
    }

    /**
     * {@code spec} with its device behind the sticky flush every user of a backing device sees (and, for a replicated
     * volume, behind the fence below that).
     */
    static BackingSpec wrapped(EventLoop loop, BackingSpec spec, CacheSetOptions options) {
        BlockDevice device = options.backingFence() == null ? spec.device()
                : new FencedDevice(spec.device(), loop, options.backingFence());
        return new BackingSpec(spec.name(), new StickyFlushDevice(device), spec.inPlace(), spec.mapDevice());
    }

    /**
     * The volume of {@code slot} on {@code backing} (wrapped), with its damage map from {@code source} if the map is
     * on and the device has room for one. Every write of the volume's data passes {@code coveredWrites}: it waits for
     * the journal record that removes a covered clean copy it could make stale (docs/FORMAT.md §7 rule 10).
     */
    static Volume volume(EventLoop loop, BlockDevice cacheDevice, CacheSpace space, JournalWriter journal,
                         AttachedBacking slot, VolumeIndex index, BackingSpec backing, DamageMapSource source,
                         CacheSetOptions options, CacheMode mode, CoveredWrites coveredWrites) {
        VolumeConfig config = new VolumeConfig(slot.volumeId(), slot.volumeSizeBytes(), slot.dataOffsetBytes(), mode,
                true, VolumeConfig.EXTENT_MAX_SECTORS_DEFAULT);
        DamageMapGeometry geometry = DamageMapGeometry.of(slot.dataOffsetBytes(), slot.volumeSizeBytes());
        // The damage map is opt-in (CacheSetOptions.damageMap says why).
        boolean mapped = geometry != null && options.damageMap();
        DamageMap damage = !mapped || source == null ? null : source.open(loop, backing.device(), backing.mapDevice(),
                slot.backingUuid(), geometry, slot.volumeSizeBytes());
        BlockDevice gated = new CoveredWriteGate(backing.device(), coveredWrites, slot.dataOffsetBytes());
        return new Volume(loop, config, cacheDevice, gated, space.layout(), space, index, journal, damage);
    }
}
