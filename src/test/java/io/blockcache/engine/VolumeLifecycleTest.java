package io.blockcache.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.device.MemoryDevice;
import io.blockcache.format.AttachedBacking;
import io.blockcache.loop.Prng;
import io.blockcache.volume.CacheMode;
import io.blockcache.volume.Volume;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Volumes attached, detached and grown on a running cache set (docs/FORMAT.md §3.1), driven on a simulated loop. */
class VolumeLifecycleTest {
    private final SimCacheSet sim = new SimCacheSet();
    private final MemoryDevice second = new MemoryDevice(sim.loop, 9L << 20, 512);

    @Test
    void detachRefusesDirtyDataUnlessDiscardedAndTheSuperblockThenForgetsTheVolume() {
        // Proves a volume holding dirty data is not detached (the refusal names the bytes and both ways out), that
        // it then still serves, and that with discarding it is detached: gone from the set and from the superblock
        // the next open reads, which opens without it.
        sim.format(1);
        CacheSet set = sim.openOk();
        Volume added = addOk(set, "v2", CacheMode.WRITETHROUGH);
        set.knobs().find("volume.v2.mode").set("writeback");
        set.knobs().find("writeback.v2.running").set("false");
        byte[] data = SimCacheSet.pattern(7, 64 << 10);
        sim.writeOk(added, 0, data);
        Outcome<Void> refused = sim.await(done -> set.removeVolume("v2", false, done));
        assertThat(refused.isOk()).isFalse();
        assertThat(refused.error()).contains("holds 65536 dirty bytes").contains("--drain").contains("--discard-dirty");
        assertThat(sim.readOk(added, 0, data.length)).as("still served after the refusal").isEqualTo(data);
        Outcome<Void> removed = sim.await(done -> set.removeVolume("v2", true, done));
        assertThat(removed.error()).isNull();
        assertThat(set.exportNames()).containsExactly(SimCacheSet.EXPORT);
        assertThat(set.superblock().backings()).extracting(AttachedBacking::exportName)
                .containsExactly(SimCacheSet.EXPORT);
        sim.crash();
        assertThat(sim.open().error()).as("opens without v2").isNull();
    }

    @Test
    void anAttachedVolumeKeepsItsLocationAndModeAcrossAnOpenAndTheLastVolumeStays() {
        // Proves the location and mode an attach records come back at the next open (the mode as the volume's), that
        // a second attach of the name is refused, and that the set's last volume cannot be detached.
        sim.format(1);
        CacheSet set = sim.openOk();
        addOk(set, "v2", CacheMode.WRITEAROUND);
        Outcome<Volume> twice = sim.await(done -> set.addVolume(new BackingSpec("v2", second), null, "", new Prng(3),
                done));
        assertThat(twice.error()).contains("attached already");
        sim.crash();
        Outcome<CacheSet> reopened = sim.open(sim.cache, List.of(new BackingSpec(SimCacheSet.EXPORT, sim.backing),
                new BackingSpec("v2", second)));
        assertThat(reopened.error()).isNull();
        AttachedBacking slot = reopened.value().superblock().backings().get(1);
        assertThat(slot.location()).isEqualTo("/srv/v2.img");
        assertThat(reopened.value().volume("v2").mode()).isEqualTo(CacheMode.WRITEAROUND);
        Outcome<Void> removed = sim.await(done -> reopened.value().removeVolume("v2", false, done));
        assertThat(removed.error()).isNull();
        Outcome<Void> last = sim.await(done -> reopened.value().removeVolume(SimCacheSet.EXPORT, false, done));
        assertThat(last.error()).contains("only volume");
    }

    @Test
    void growRefusesShrinkingAndAStoreTooSmall() {
        // Proves a grow is refused below the current size and beyond the store's size, each with its reason, and
        // that the volume keeps its size (grows that succeed: crash.VolumeChangeCrashTest, the interop test).
        sim.format(1);
        CacheSet set = sim.openOk();
        long size = set.volume(SimCacheSet.EXPORT).sizeBytes();
        Outcome<Void> shrink = sim.await(done -> set.growVolume(SimCacheSet.EXPORT, size - 4096, done));
        assertThat(shrink.error()).contains("shrinking is not supported");
        Outcome<Void> tooBig = sim.await(done -> set.growVolume(SimCacheSet.EXPORT, size + (64L << 20), done));
        assertThat(tooBig.error()).contains("grow it first");
        assertThat(set.volume(SimCacheSet.EXPORT).sizeBytes()).isEqualTo(size);
    }

    private Volume addOk(CacheSet set, String name, CacheMode mode) {
        Outcome<Volume> added = sim.await(done -> set.addVolume(new BackingSpec(name, second), mode, "/srv/v2.img",
                new Prng(2), done));
        assertThat(added.error()).as("add").isNull();
        return added.value();
    }
}
