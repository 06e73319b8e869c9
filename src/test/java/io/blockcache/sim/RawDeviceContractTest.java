package io.blockcache.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.loop.Prng;
import io.blockcache.loop.SimLoop;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;

/** The model and crash harness against plain simulated devices, which must meet the contract themselves. */
class RawDeviceContractTest {
    private static final long DEVICE_BYTES = 64L << 20;
    private static final BiFunction<SimLoop, Prng, CrashTarget> SSD =
            (loop, ids) -> new RawDeviceTarget(loop, SmallDevices.ssd(loop, DEVICE_BYTES));
    private static final BiFunction<SimLoop, Prng, CrashTarget> HDD =
            (loop, ids) -> new RawDeviceTarget(loop, SmallDevices.hdd(loop, DEVICE_BYTES));
    private static final BiFunction<SimLoop, Prng, CrashTarget> OBJECT_STORE =
            (loop, ids) -> new RawDeviceTarget(loop, SmallDevices.objectStore(loop, DEVICE_BYTES, ids.split()));

    @Test
    void everyReadOfAnSsdMatchesTheModelOver200Seeds() {
        // Proves the reference model accepts a correct device: every read of 200 seeded runs is allowed.
        long completed = 0;
        for (long seed = 1; seed <= 200; seed++) {
            completed += CrashScenario.run(seed, ScenarioConfig.modelTest(300), SSD).requestsCompleted();
        }
        assertThat(completed).isEqualTo(200L * 300 * 2); // one segment plus the final one, per seed
    }

    @Test
    void everyReadOfAnHddWithWriteCacheMatchesTheModel() {
        // Proves the same on the disk model, whose cache destages out of order (SPTF).
        for (long seed = 1; seed <= 50; seed++) {
            CrashScenario.run(seed, ScenarioConfig.modelTest(300), HDD);
        }
    }

    @Test
    void ssdCrashImagesKeepTheDurabilityContract() {
        // Proves flushed and FUA data survives SSD crashes (nested ones included) over 100 seeds.
        int crashes = 0;
        int nested = 0;
        long durableSectors = 0;
        for (long seed = 1; seed <= 100; seed++) {
            CrashScenario.Result result = CrashScenario.run(seed, ScenarioConfig.crashTest(100, 3, 3), SSD);
            crashes += result.crashes();
            nested += result.nestedCrashes();
            durableSectors += result.durableSectorsChecked();
        }
        assertThat(durableSectors).as("crash checks saw flushed/FUA data").isGreaterThan(100L * 100);
        assertThat(crashes).isGreaterThanOrEqualTo(300);
        assertThat(nested).as("nested crashes during recovery happen").isPositive();
    }

    @Test
    void hddCrashImagesKeepTheDurabilityContract() {
        // Proves flushed and FUA data survives crashes of the disk with its volatile write cache on.
        for (long seed = 1; seed <= 100; seed++) {
            CrashScenario.run(seed, ScenarioConfig.crashTest(100, 3, 3), HDD);
        }
    }

    @Test
    void everyReadOfAnObjectStoreMatchesTheModel() {
        // Proves reads of the object store see staged, uploading and stored writes alike, over 50 seeds.
        for (long seed = 1; seed <= 50; seed++) {
            CrashScenario.run(seed, ScenarioConfig.modelTest(300), OBJECT_STORE);
        }
    }

    @Test
    void objectStoreCrashImagesKeepTheDurabilityContract() {
        // Proves flushed and FUA data survives crashes of the object store (staged chunks lost, PUTs kept).
        long durableSectors = 0;
        for (long seed = 1; seed <= 100; seed++) {
            durableSectors += CrashScenario.run(seed, ScenarioConfig.crashTest(100, 3, 3), OBJECT_STORE)
                    .durableSectorsChecked();
        }
        assertThat(durableSectors).as("crash checks saw flushed/FUA data").isGreaterThan(100L * 100);
    }
}
