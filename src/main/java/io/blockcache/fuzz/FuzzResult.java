package io.blockcache.fuzz;

import java.util.Set;

/**
 * What one fuzz seed did, for the summary and for determinism checks ({@code traceHash} is the loop's).
 *
 * @param seed the seed
 * @param traceHash the simulated loop's trace hash: equal for two runs of one seed
 * @param crashes power cuts, nested ones included
 * @param nestedCrashes power cuts that hit a recovery in progress
 * @param cleanRestarts clean shutdowns followed by an open
 * @param operations workload requests completed
 * @param modesCovered cache modes some volume ran in
 * @param checkpoints checkpoints written
 * @param evictions buckets evicted by GC
 * @param ringWraps journal laps around its ring
 * @param faultsInjected device faults injected (media faults included)
 * @param mediaFaults blocks of clean cached data damaged while the power was off (bit rot, misdirected or lost
 *     writes), which checksums must catch
 * @param checksumCatches cache reads whose CRC32C failed: damage the checksums caught
 * @param controlActions live control actions (mode switches, drains, GC, checkpoints, knob changes)
 * @param prefixChecks prefix-oracle checks of volumes with epoch ordering ({@link PrefixOracle})
 * @param prefixViolationsUnordered prefix-oracle checks of volumes without epoch ordering that found no FLUSH
 *     boundary (expected, not a failure: they show the oracle is not vacuous)
 * @param damageChecks damage-map oracle checks (one per volume at each power cut and at random points)
 * @param damageChecksStale of those, checks whose map listed stale ranges (dirty data was at stake)
 * @param prefixChecksAcrossRestart of {@code prefixChecks}, those judged by the history before a restart (dirty data
 *     recovered with its epochs was being written back)
 * @param orderingSwitches live switches of a volume's {@code ordering} knob
 * @param damageChecksConsistent of {@code damageChecks}, checks of a map flagged "consistent as of epoch E" (judged by
 *     the prefix check)
 * @param damageMapFiles volumes whose damage map lived in a map file ({@code damage-map=file})
 * @param objectStoreVolumes volumes whose backing device was an object store model
 * @param chunkPasses writeback passes of a whole or partial chunk (the object-store path)
 * @param drainJobActions drain jobs started capped, paused, resumed or cancelled ({@link DrainJobControls})
 * @param compactedBuckets dirty buckets GC chose for compaction (docs/GC.md "Compaction")
 * @param journaledVolumes volumes with a backing log and {@code ordering=journaled}
 * @param logGroups groups journaled write-back committed to a backing log
 * @param diskFullRefusals cache-device writes refused with ENOSPC while the cache's file system was full
 * @param volumeChanges volumes removed and added again live ({@link VolumeChurn})
 * @param volumeChangeCuts power cuts during such a change
 * @param volumeChangesWithLog of {@code volumeChanges}, those of volumes with a backing log
 */
public record FuzzResult(long seed, long traceHash, int crashes, int nestedCrashes, int cleanRestarts,
                         long operations, Set<String> modesCovered, long checkpoints, long evictions, long ringWraps,
                         long faultsInjected, long mediaFaults, long checksumCatches, long controlActions,
                         long prefixChecks, long prefixViolationsUnordered, long damageChecks,
                         long damageChecksStale, long prefixChecksAcrossRestart, long orderingSwitches,
                         long damageChecksConsistent, long damageMapFiles,
                         long objectStoreVolumes, long chunkPasses, long drainJobActions,
                         long compactedBuckets, long journaledVolumes, long logGroups,
                         long diskFullRefusals, long volumeChanges, long volumeChangeCuts,
                         long volumeChangesWithLog) {
}
