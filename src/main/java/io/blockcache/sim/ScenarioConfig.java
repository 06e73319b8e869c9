package io.blockcache.sim;

import static io.blockcache.loop.Checks.require;

/**
 * The shape of one {@link CrashScenario} run, validated here.
 *
 * @param rangeBytes the workload's range from byte 0: small (2–8 MiB) so overlaps are frequent
 * @param opsPerSegment requests generated in each segment
 * @param depthMax requests in flight at once
 * @param segments segments per run; with crashes each ends in a crash, recovery and full read-back
 * @param crashes whether segments end in a crash (false: a pure model test)
 * @param nestedCrashesMax crashes at most injected into one recovery
 * @param recoveryCrashEventsMax a nested crash comes after a random number of loop events below this
 * @param stallEventsMax loop events allowed for something awaited (a workload, a recovery) before the run
 *     is declared stalled
 */
public record ScenarioConfig(long rangeBytes, int opsPerSegment, int depthMax, int segments, boolean crashes,
                             int nestedCrashesMax, int recoveryCrashEventsMax, long stallEventsMax) {
    public ScenarioConfig {
        require(rangeBytes > 0 && rangeBytes % 4096 == 0, "rangeBytes must be a positive multiple of 4096");
        require(opsPerSegment >= 1 && opsPerSegment <= 100_000, "opsPerSegment out of range");
        require(depthMax >= 1 && depthMax <= 64, "depthMax out of range");
        require(segments >= 1 && segments <= 100, "segments out of range");
        require(nestedCrashesMax >= 0 && nestedCrashesMax <= 10, "nestedCrashesMax out of range");
        require(recoveryCrashEventsMax >= 1, "recoveryCrashEventsMax must be >= 1");
        require(stallEventsMax >= 1000, "stallEventsMax must be >= 1000");
    }

    /** A model test: 4 MiB, {@code ops} requests, depth 8, one segment, no crashes. */
    public static ScenarioConfig modelTest(int ops) {
        return new ScenarioConfig(4 << 20, ops, 8, 1, false, 0, 1, 10_000_000);
    }

    /**
     * A crash test: 2 MiB, {@code segments} segments of {@code opsPerSegment} requests at depth 8, each ending
     * in a crash; up to 2 nested crashes within the first {@code recoveryCrashEventsMax} events of a recovery.
     */
    public static ScenarioConfig crashTest(int opsPerSegment, int segments, int recoveryCrashEventsMax) {
        return new ScenarioConfig(2 << 20, opsPerSegment, 8, segments, true, 2, recoveryCrashEventsMax, 10_000_000);
    }
}
