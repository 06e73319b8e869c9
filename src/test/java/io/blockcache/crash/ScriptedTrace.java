package io.blockcache.crash;

import java.util.List;

/**
 * A short scripted trace for crash-point enumeration: at most {@link #STEPS_MAX} front-end operations on
 * volume 0, each submitted once the one before it has answered (unless that one is left in flight on purpose).
 *
 * @param name how failure messages name it
 * @param steps the operations, in order
 */
record ScriptedTrace(String name, List<Step> steps) {
    /** Traces short enough to enumerate every crash state. */
    static final int STEPS_MAX = 4;
    private static final long KIB = 1024;
    private static final long SECTOR_BYTES = 512;

    ScriptedTrace {
        steps = List.copyOf(steps);
        if (steps.isEmpty() || steps.size() > STEPS_MAX) {
            throw new IllegalArgumentException(name + ": a trace has 1.." + STEPS_MAX + " steps: " + steps);
        }
    }

    /** What a step does. */
    enum Kind {
        /** A write of self-identifying data. */
        WRITE,
        /** A write with FUA. */
        FUA_WRITE,
        /** A write-zeroes. */
        WRITE_ZEROES,
        /** A FLUSH of the volume. */
        FLUSH,
        /** A drain of the volume: every dirty extent written back, the clean marks durable. */
        DRAIN,
        /** Background writeback with a dirty target of 0%, awaited until nothing is dirty. */
        WRITEBACK,
        /** A live switch to the next cache mode (writeback, writethrough, writearound, none, writeback). */
        SWITCH_MODE
    }

    /**
     * One operation; offsets and lengths in bytes of the volume (0 where they do not apply). A step that is not
     * {@code awaited} is left in flight while the next one is submitted (the next awaited step waits for both).
     */
    record Step(Kind kind, long offsetBytes, long lengthBytes, boolean awaited) {
        static Step of(Kind kind) {
            return new Step(kind, 0, 0, true);
        }

        static Step of(Kind kind, long offsetKib, long lengthKib) {
            return new Step(kind, offsetKib * KIB, lengthKib * KIB, true);
        }

        /** This step, submitted without waiting for its answer. */
        Step inFlight() {
            return new Step(kind, offsetBytes, lengthBytes, false);
        }

        @Override
        public String toString() {
            return (lengthBytes == 0 ? kind.toString() : kind + " sectors [" + offsetBytes / SECTOR_BYTES + ", +"
                    + lengthBytes / SECTOR_BYTES + ")") + (awaited ? "" : " (not awaited)");
        }
    }

    /**
     * The traces every cache mode runs. Writes overlap the ones before them in part (a newer value over an older
     * one, flushed, dirty or written back), and some are not aligned to 4 KiB, so extents split at odd sectors.
     * "switch-*" change the mode with data of the first mode in the cache (from write-back: dirty data); in
     * "concurrent*" overlapping mutations and a FLUSH are in flight together.
     */
    static List<ScriptedTrace> all() {
        return List.of(
                new ScriptedTrace("flush-overwrite-fua", List.of(Step.of(Kind.WRITE, 0, 64), Step.of(Kind.FLUSH),
                        Step.of(Kind.WRITE, 32, 64), Step.of(Kind.FUA_WRITE, 512, 16))),
                new ScriptedTrace("flush-overwrite-drain", List.of(Step.of(Kind.WRITE, 0, 64), Step.of(Kind.FLUSH),
                        Step.of(Kind.WRITE, 20, 16), Step.of(Kind.DRAIN))),
                new ScriptedTrace("flush-writeback-fua", List.of(Step.of(Kind.WRITE, 128, 64), Step.of(Kind.FLUSH),
                        Step.of(Kind.WRITEBACK), Step.of(Kind.FUA_WRITE, 160, 8))),
                new ScriptedTrace("fua-zeroes-overwrite", List.of(Step.of(Kind.FUA_WRITE, 0, 32),
                        Step.of(Kind.WRITE_ZEROES, 8, 8), Step.of(Kind.WRITE, 12, 8), Step.of(Kind.FLUSH))),
                new ScriptedTrace("switch-overwrite-flush", List.of(Step.of(Kind.WRITE, 0, 32),
                        Step.of(Kind.SWITCH_MODE), Step.of(Kind.WRITE, 8, 16), Step.of(Kind.FLUSH))),
                new ScriptedTrace("switch-overwrite-writeback", List.of(Step.of(Kind.WRITE, 0, 64),
                        Step.of(Kind.SWITCH_MODE), Step.of(Kind.WRITE, 16, 16), Step.of(Kind.WRITEBACK))),
                new ScriptedTrace("switch-zeroes-drain", List.of(Step.of(Kind.WRITE, 0, 64), Step.of(Kind.SWITCH_MODE),
                        Step.of(Kind.WRITE_ZEROES, 8, 16), Step.of(Kind.DRAIN))),
                new ScriptedTrace("concurrent", List.of(Step.of(Kind.WRITE, 0, 64).inFlight(),
                        Step.of(Kind.WRITE, 16, 32).inFlight(), Step.of(Kind.FLUSH), Step.of(Kind.FUA_WRITE, 48, 32))),
                new ScriptedTrace("concurrent-unaligned", List.of(sectors(Kind.WRITE, 0, 33).inFlight(),
                        sectors(Kind.FUA_WRITE, 17, 24).inFlight(), sectors(Kind.WRITE_ZEROES, 30, 9).inFlight(),
                        Step.of(Kind.FLUSH))));
    }

    /**
     * Traces for a volume with {@code ordering=epochs}: two or three epochs, the later ones at lower LBAs
     * (so LBA order alone would invert them), crashed while writeback writes them back, while an overwrite of an
     * older epoch waits for it, and around a FUA write (which closes an epoch too).
     */
    static List<ScriptedTrace> epochs() {
        return List.of(
                new ScriptedTrace("epochs-writeback", List.of(Step.of(Kind.WRITE, 512, 64), Step.of(Kind.FLUSH),
                        Step.of(Kind.WRITE, 0, 64), Step.of(Kind.WRITEBACK))),
                new ScriptedTrace("epochs-overwrite", List.of(Step.of(Kind.WRITE, 256, 64), Step.of(Kind.FLUSH),
                        Step.of(Kind.WRITE, 0, 32), Step.of(Kind.WRITE, 288, 64))),
                new ScriptedTrace("epochs-fua", List.of(Step.of(Kind.WRITE, 768, 32), Step.of(Kind.FUA_WRITE, 256, 16),
                        Step.of(Kind.WRITE, 0, 32), Step.of(Kind.DRAIN))));
    }

    private static Step sectors(Kind kind, long offsetSectors, long lengthSectors) {
        return new Step(kind, offsetSectors * SECTOR_BYTES, lengthSectors * SECTOR_BYTES, true);
    }

    @Override
    public String toString() {
        return name + " " + steps;
    }
}
