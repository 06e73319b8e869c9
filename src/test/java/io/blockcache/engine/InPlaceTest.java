package io.blockcache.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.device.IoResult;
import io.blockcache.device.MemoryDevice;
import io.blockcache.format.AttachedBacking;
import io.blockcache.loop.Prng;
import io.blockcache.volume.Volume;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Caching a backing device in place (docs/FORMAT.md §4.2): nothing written on it at format, its data visible at
 * once through a volume of exactly its size, and its identity (size, fingerprint) checked at open.
 */
class InPlaceTest {
    private final SimCacheSet sim = new SimCacheSet();
    private final List<BackingSpec> inPlace = List.of(new BackingSpec(SimCacheSet.EXPORT, sim.backing, true));

    private void formatInPlace() {
        Outcome<Void> formatted = sim.await(done -> CacheSet.format(sim.loop, sim.cache, inPlace, SimCacheSet.OPTIONS,
                new Prng(5), fraction -> { }, done));
        assertThat(formatted.error()).as("format").isNull();
    }

    private CacheSet openOk() {
        Outcome<CacheSet> opened = sim.open(sim.cache, inPlace);
        assertThat(opened.error()).as("open").isNull();
        return opened.value();
    }

    private void shutdownOk(CacheSet set) {
        assertThat(sim.io(set::shutdown)).isEqualTo(IoResult.OK);
    }

    @Test
    void formatWritesNothingOnTheBackingAndItsDataIsVisibleAtOnce() {
        // Proves format --in-place and the first open leave every byte of the backing as it was, the volume is the
        // whole device and reads return the backing's existing data at the same offsets.
        int deviceBytes = (int) sim.backing.sizeBytes();
        byte[] existing = SimCacheSet.pattern(9, deviceBytes);
        sim.rawWrite(sim.backing, 0, existing);
        formatInPlace();
        assertThat(sim.rawRead(sim.backing, 0, deviceBytes)).isEqualTo(existing);
        CacheSet set = openOk();
        assertThat(sim.rawRead(sim.backing, 0, deviceBytes)).as("open writes nothing either (no damage map)")
                .isEqualTo(existing);
        Volume volume = set.volumes().get(0);
        assertThat(set.superblock().backings().get(0).inPlace()).isTrue();
        assertThat(set.superblock().backings().get(0).volumeSizeBytes()).isEqualTo(deviceBytes);
        assertThat(sim.readOk(volume, 0, 8192)).isEqualTo(Arrays.copyOfRange(existing, 0, 8192));
        long last = deviceBytes - 4096;
        assertThat(sim.readOk(volume, last, 4096))
                .isEqualTo(Arrays.copyOfRange(existing, (int) last, deviceBytes));
    }

    @Test
    void aCleanStopAfterWritebackRecordsTheNewFingerprintAndABehindTheBackWriteIsRefused() {
        // Proves the fingerprint follows the cache's own writes (a drained write to sampled block 0, then a clean
        // stop, opens again), and that a write behind the cache's back to a sampled block is refused at the next
        // open with a message saying so.
        formatInPlace();
        CacheSet set = openOk();
        Volume volume = set.volumes().get(0);
        byte[] mine = SimCacheSet.pattern(3, 4096);
        sim.writeOk(volume, 0, mine);
        sim.flushOk(volume);
        assertThat(sim.io(done -> set.drain(SimCacheSet.EXPORT, progress -> { }, done))).isEqualTo(IoResult.OK);
        assertThat(sim.rawRead(sim.backing, 0, 4096)).isEqualTo(mine); // in place: byte 0 of the device
        shutdownOk(set);
        CacheSet again = openOk();
        assertThat(sim.readOk(again.volumes().get(0), 0, 4096)).isEqualTo(mine);
        shutdownOk(again);

        sim.flipByte(sim.backing, BackingFingerprint.sampleOffsetBytes(sim.backing.sizeBytes(), 3) + 10);
        Outcome<CacheSet> refused = sim.open(sim.cache, inPlace);
        assertThat(refused.isOk()).isFalse();
        assertThat(refused.error()).contains("cached in place").contains("is not as the cache left it")
                .contains("written behind the cache's back");
    }

    @Test
    void afterAnUncleanStopOnlyTheSizeIsCheckedAndAResizedDeviceIsRefused() {
        // Proves an unclean stop skips the fingerprint (writeback may have changed sampled blocks since it was
        // taken) but not the size: a device of another size is refused naming both sizes.
        formatInPlace();
        CacheSet set = openOk();
        sim.writeOk(set.volumes().get(0), 0, SimCacheSet.pattern(4, 4096));
        sim.flushOk(set.volumes().get(0));
        sim.crash();
        sim.flipByte(sim.backing, 10);
        Outcome<CacheSet> reopened = sim.open(sim.cache, inPlace);
        assertThat(reopened.error()).as("unclean: size only").isNull();
        assertThat(sim.readOk(reopened.value().volumes().get(0), 0, 4096)).isEqualTo(SimCacheSet.pattern(4, 4096));
        sim.crash();
        MemoryDevice bigger = new MemoryDevice(sim.loop,
                sim.backing.sizeBytes() + 4096, 512);
        Outcome<CacheSet> resized = sim.open(sim.cache, List.of(new BackingSpec(SimCacheSet.EXPORT, bigger)));
        assertThat(resized.error()).contains("was resized").contains("found device size " + bigger.sizeBytes())
                .contains("expected " + sim.backing.sizeBytes());
    }

    @Test
    void aSlotInPlaceRoundTripsWithItsFingerprint() {
        // Proves the superblock keeps an in-place slot (data offset 0) and its fingerprint across encode/decode.
        formatInPlace();
        AttachedBacking slot = sim.superblockCopy(0).value().backings().get(0);
        assertThat(slot.inPlace()).isTrue();
        assertThat(slot.fingerprint()).isNotZero();
        assertThat(sim.superblockCopy(4096).value().backings().get(0)).isEqualTo(slot);
    }
}
