package io.blockcache.engine;

import java.util.List;

/**
 * What {@code blockcache check --damage} found on the backing devices alone (no cache device): per volume, the
 * ranges whose data on the backing device may be older than what the cache had acknowledged
 * (docs/WRITEBACK.md "When a device fails").
 *
 * @param volumes one entry per backing device, in the order given
 */
public record DamageReport(List<Volume> volumes) {
    public DamageReport {
        volumes = List.copyOf(volumes);
    }

    /** What the whole report says, from best to worst; the CLI's exit status follows it. */
    public enum Verdict {
        /** Every map was read and lists nothing: the backing devices are current, or consistent as of an epoch. */
        CLEAN,
        /** Every map was read; some ranges are stale. */
        STALE,
        /** A header or map block could not be read or trusted; what it covers is listed as stale. */
        UNKNOWN
    }

    /** The worst verdict of any volume. */
    public Verdict verdict() {
        Verdict worst = Verdict.CLEAN;
        for (Volume volume : volumes) {
            if (!volume.problems().isEmpty()) {
                return Verdict.UNKNOWN;
            }
            if (!volume.staleRanges().isEmpty()) {
                worst = Verdict.STALE;
            }
        }
        return worst;
    }

    /**
     * One backing device.
     *
     * @param name the name it was given under
     * @param volumeSizeBytes the volume's size from its header, or 0 if the header is unreadable
     * @param regionBytes bytes per map bit, or 0 when there is no map
     * @param consistentEpoch with ordering=epochs, the epoch the backing device is consistent as of; else -1
     * @param staleRanges stale ranges in volume sectors (512 B), sorted, merged, within the volume
     * @param staleBytes bytes in them
     * @param problems what could not be read or trusted (each range it covers is in {@code staleRanges})
     */
    public record Volume(String name, long volumeSizeBytes, long regionBytes, long consistentEpoch,
                         List<SectorRange> staleRanges, long staleBytes, List<String> problems) {
        public Volume {
            staleRanges = List.copyOf(staleRanges);
            problems = List.copyOf(problems);
        }
    }

    /**
     * A range of volume sectors.
     *
     * @param startSector first sector (512 B) of the volume
     * @param lengthSectors sectors, at least 1
     */
    public record SectorRange(long startSector, long lengthSectors) {
    }
}
