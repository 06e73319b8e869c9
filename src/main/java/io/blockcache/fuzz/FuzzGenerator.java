package io.blockcache.fuzz;

/**
 * The generations of the fuzz's setup generator. Each new dimension is drawn from a stream of its own, so a seed
 * keeps every earlier draw; a seed pinned in {@code FuzzRegressionTest} names a scenario only under the generation
 * it was found with, and replays under it (docs/TESTING.md "Bugs the fuzz found").
 */
enum FuzzGenerator {
    /** The first generator: every volume {@code ordering=none}, every damage map on its backing device. */
    UNORDERED(false, false, false, false, false, false, false, false, false, false),
    /** From epoch ordering on: {@code ordering} drawn; every damage map on its backing device (2026-12-01). */
    MAPS_ON_BACKING(true, false, false, false, false, false, false, false, false, false),
    /** 2026-12-01, later: damage maps placed in files or on the backing as drawn; no faults on the map files. */
    NO_MAP_FAULTS(true, true, false, false, false, false, false, false, false, false),
    /** 2026-12-02: faults on the map files too; every backing device a disk or an SSD model, no drain jobs steered. */
    NO_OBJECT_STORES(true, true, true, false, false, false, false, false, false, false),
    /**
     * 2026-12-02 to 2026-12-04: some volumes' backing devices are object store models (the chunk writeback path), and
     * some seeds steer drain jobs ({@link DrainJobControls}); no backing logs.
     */
    NO_JOURNALED(true, true, true, true, false, false, false, false, false, false),
    /**
     * 2026-12-04, journaled write-back: some volumes have a backing log, {@code ordering=journaled} ({@link
     * FuzzSetup#withJournaled}), but only volumes on a disk or an SSD model.
     */
    JOURNALED_ON_DISKS(true, true, true, true, true, false, false, false, false, false),
    /**
     * 2026-12-04 (journaled object stores) to 2026-12-07: an object store volume may draw a backing log and {@code
     * ordering=journaled} too; 17 knobs per volume drawn by hand ({@link FuzzSetup#draw}).
     */
    JOURNALED_OBJECT_STORES(true, true, true, true, true, true, false, false, false, false),
    /**
     * 2026-12-07: every knob of {@code engine.KnobTable} drawn from its declaration, from a stream of its own
     * ({@link FuzzSetup#withTableKnobs}), replacing the hand-picked ones; the cache's file system never full, no
     * sustained-overload phases.
     */
    TABLE_KNOBS(true, true, true, true, true, true, true, false, false, false),
    /**
     * 2026-12-07, later: a quarter of the seeds fill the file system under the cache file and free it again while
     * the workload runs ({@link FuzzFaults#withDiskFull}), and some segments are sustained-overload phases ({@link
     * SustainedPhases}), each drawn from a stream of its own, so every other draw of a seed stays as it was; no volume
     * removed and added live.
     */
    DISK_FULL(true, true, true, true, true, true, true, true, true, false),
    /**
     * 2026-12-07, evening, on: in some seeds a volume is removed and added again live between segments, with power cuts
     * during the change ({@link VolumeChurn}), from a stream of its own.
     */
    CURRENT(true, true, true, true, true, true, true, true, true, true);

    final boolean drawsOrdering;
    final boolean drawsMapPlacement;
    final boolean faultsMaps;
    final boolean drawsObjectStores;
    /** Drain jobs steered (started capped, paused, resumed, cancelled, restored): with the object stores. */
    final boolean steersDrainJobs;
    final boolean drawsJournaled;
    /** Whether an object store volume that draws {@code journaled} gets it (s3:// backings with a log). */
    final boolean journalsObjectStores;
    /** Whether every knob of the knob table is drawn from its declaration (else the hand-picked draw). */
    final boolean drawsTableKnobs;
    /** Whether the cache file's file system may fill up ({@link FuzzFaults#cacheDiskFullChance}). */
    final boolean drawsDiskFull;
    /** Whether some segments are sustained-overload phases ({@link SustainedPhases}). */
    final boolean drawsSustainedPhases;
    /** Whether volumes are removed and added again live between segments ({@link VolumeChurn}). */
    final boolean drawsVolumeChurn;

    FuzzGenerator(boolean drawsOrdering, boolean drawsMapPlacement, boolean faultsMaps, boolean drawsObjectStores,
                  boolean drawsJournaled, boolean journalsObjectStores, boolean drawsTableKnobs,
                  boolean drawsDiskFull, boolean drawsSustainedPhases, boolean drawsVolumeChurn) {
        this.drawsVolumeChurn = drawsVolumeChurn;
        this.drawsDiskFull = drawsDiskFull;
        this.drawsSustainedPhases = drawsSustainedPhases;
        this.drawsJournaled = drawsJournaled;
        this.journalsObjectStores = journalsObjectStores;
        this.drawsTableKnobs = drawsTableKnobs;
        this.drawsOrdering = drawsOrdering;
        this.drawsMapPlacement = drawsMapPlacement;
        this.faultsMaps = faultsMaps;
        this.drawsObjectStores = drawsObjectStores;
        this.steersDrainJobs = drawsObjectStores;
    }
}
