package io.blockcache.engine;

import io.blockcache.format.AttachedBacking;
import io.blockcache.format.CacheSuperblock;
import java.util.List;

/**
 * What salvage found on a cache device whose metadata open refuses ({@link Salvager}): per volume, the dirty extents
 * whose newest version is known (their data still to be read and verified against their CRC32C) and the ranges whose
 * newest version is unknown. Immutable.
 *
 * @param superblock the superblock used
 * @param notes what was damaged and what salvage did about it, for the report, in the order found
 * @param volumes one per attached backing device, in superblock slot order
 */
public record SalvagePlan(CacheSuperblock superblock, List<String> notes, List<VolumePlan> volumes) {
    public SalvagePlan {
        notes = List.copyOf(notes);
        volumes = List.copyOf(volumes);
    }

    /**
     * One volume's findings.
     *
     * @param backing the volume's slot in the superblock (name, size, identity)
     * @param dirty the newest known dirty pieces, in LBA order, none inside {@code unknown}
     * @param unknown ranges whose newest version is unknown, in LBA order; salvage writes nothing there
     * @param unknownReason why they are unknown (empty when there are none)
     */
    public record VolumePlan(AttachedBacking backing, List<Piece> dirty, List<SectorRanges.Range> unknown,
                             String unknownReason) {
        public VolumePlan {
            dirty = List.copyOf(dirty);
            unknown = List.copyOf(unknown);
        }
    }

    /**
     * A dirty piece of a volume and where its data is: volume sectors {@code [startSector, startSector +
     * lengthSectors)} are bucket sectors {@code [offsetInBucketSectors, ...)} of {@code bucket}, and the CRC32C
     * {@code crc32c} covers bucket sectors {@code [crcOffsetInBucketSectors, crcOffsetInBucketSectors +
     * crcLengthSectors)}, which contain the piece.
     */
    public record Piece(long startSector, int lengthSectors, int bucket, int offsetInBucketSectors,
                        int crcOffsetInBucketSectors, int crcLengthSectors, int crc32c) {
    }
}
