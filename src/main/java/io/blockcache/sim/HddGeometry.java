package io.blockcache.sim;

import io.blockcache.device.BlockDevice;
import java.util.Arrays;

/**
 * The mechanical layout derived from an {@link HddConfig}: zones, tracks, the angle of every sector, the
 * seek curve, and media transfer times. Pure functions of the config.
 *
 * <p><b>Layout.</b> One recording surface, tracks numbered from the outer edge, LBAs laid out track after
 * track (multiple heads would only rename tracks into cylinders). Zones have equal numbers of tracks; the
 * rate of zone {@code z} falls linearly from the outer to the inner rate, and its sectors per track follow
 * the rate: {@code spt = rate * (rotation + trackSwitch) / 512}, so a sequential stream, which pays one
 * track switch per turn, runs at exactly the configured rate.
 *
 * <p><b>Angles.</b> Angles are measured in nanoseconds of rotation, in {@code [0, rotationNs)}. The head is
 * over angle {@code t mod rotationNs} at loop time {@code t}. Sector {@code i} of track {@code k} starts at
 * {@code (k * trackSwitchNs + i * rotationNs / spt) mod rotationNs}: each track is skewed by exactly the
 * track-switch time, so after the last sector of a track and a switch the head is over sector 0 of the
 * next track and waits nothing.
 *
 * <p><b>Seek curve</b> through the three configured points, distance {@code d} in tracks, {@code D} tracks:
 * {@code d = 0}: 0; {@code 1 <= d <= D/3}: {@code t2t + (avg - t2t) * sqrt((d - 1) / (D/3 - 1))} (short seeks
 * are dominated by acceleration, so time grows with the square root of distance); {@code d > D/3}: linear
 * from {@code avg} to {@code full} at {@code d = D - 1} (long seeks coast at top speed). D/3 is the mean
 * distance between two uniformly random tracks, the convention behind the quoted average seek.
 */
final class HddGeometry {
    final long rotationNs;
    final long trackSwitchNs;
    final long tracksTotal;
    private final long averageSeekDistance;
    private final HddConfig config;
    private final long[] zoneFirstSector;
    private final long[] zoneFirstTrack;
    private final long[] zoneSectorsPerTrack;

    HddGeometry(HddConfig config) {
        this.config = config;
        this.rotationNs = 60_000_000_000L / config.rotationsPerMinute();
        this.trackSwitchNs = config.trackToTrackSeekNs();
        int zones = config.zoneCount();
        zoneSectorsPerTrack = new long[zones];
        long sectorsPerTrackSet = 0;
        for (int z = 0; z < zones; z++) {
            double rate = zones == 1 ? config.outerZoneBytesPerSecond()
                    : config.outerZoneBytesPerSecond()
                            - (double) (config.outerZoneBytesPerSecond() - config.innerZoneBytesPerSecond()) * z
                                    / (zones - 1);
            zoneSectorsPerTrack[z] = Math.max(1, (long) (rate * (rotationNs + trackSwitchNs) / 1e9
                    / BlockDevice.SECTOR_BYTES));
            sectorsPerTrackSet += zoneSectorsPerTrack[z];
        }
        long sectorsTotal = config.sizeBytes() / BlockDevice.SECTOR_BYTES;
        long tracksPerZone = (sectorsTotal + sectorsPerTrackSet - 1) / sectorsPerTrackSet;
        zoneFirstSector = new long[zones];
        zoneFirstTrack = new long[zones];
        for (int z = 1; z < zones; z++) {
            zoneFirstSector[z] = zoneFirstSector[z - 1] + tracksPerZone * zoneSectorsPerTrack[z - 1];
            zoneFirstTrack[z] = zoneFirstTrack[z - 1] + tracksPerZone;
        }
        tracksTotal = tracksPerZone * zones;
        averageSeekDistance = Math.max(2, tracksTotal / 3);
    }

    /** The zone holding {@code sector}. */
    int zoneOf(long sector) {
        int i = Arrays.binarySearch(zoneFirstSector, sector);
        return i >= 0 ? i : -i - 2;
    }

    /** The track holding {@code sector}. */
    long trackOf(long sector) {
        int z = zoneOf(sector);
        return zoneFirstTrack[z] + (sector - zoneFirstSector[z]) / zoneSectorsPerTrack[z];
    }

    /** Sectors per track in the zone of {@code sector}. */
    long sectorsPerTrackAt(long sector) {
        return zoneSectorsPerTrack[zoneOf(sector)];
    }

    /** The sustained sequential rate of the zone of {@code sector}, bytes per second. */
    double sustainedBytesPerSecondAt(long sector) {
        return zoneSectorsPerTrack[zoneOf(sector)] * (double) BlockDevice.SECTOR_BYTES * 1e9
                / (rotationNs + trackSwitchNs);
    }

    /** The angle (ns of rotation) at which {@code sector} starts passing under the head. */
    long angleNs(long sector) {
        int z = zoneOf(sector);
        long spt = zoneSectorsPerTrack[z];
        long relative = sector - zoneFirstSector[z];
        long track = zoneFirstTrack[z] + relative / spt;
        long index = relative % spt;
        return Math.floorMod(track * trackSwitchNs + offsetInTrackNs(index, spt), rotationNs);
    }

    /** Time from the start of a track to the start of sector {@code index} of it. */
    private long offsetInTrackNs(long index, long spt) {
        return index * rotationNs / spt;
    }

    /** Seek time over {@code distanceTracks} tracks (see the class comment for the curve). */
    long seekNs(long distanceTracks) {
        long d = Math.abs(distanceTracks);
        if (d == 0) {
            return 0;
        }
        long t2t = config.trackToTrackSeekNs();
        long avg = config.averageSeekNs();
        if (d <= averageSeekDistance) {
            return t2t + (long) ((avg - t2t) * Math.sqrt((double) (d - 1) / (averageSeekDistance - 1)));
        }
        double beyond = (double) (d - averageSeekDistance) / Math.max(1, tracksTotal - 1 - averageSeekDistance);
        return avg + (long) ((config.fullStrokeSeekNs() - avg) * Math.min(1.0, beyond));
    }

    /**
     * Time the head takes to pass over {@code sectorCount} sectors from {@code firstSector}, starting at loop
     * time {@code startNs} with the head over the first sector, including a track switch (and any rotational
     * wait after it, zero thanks to the skew) at each track boundary.
     */
    long transferNs(long startNs, long firstSector, long sectorCount) {
        long timeNs = startNs;
        long sector = firstSector;
        long remaining = sectorCount;
        while (remaining > 0) {
            int z = zoneOf(sector);
            long spt = zoneSectorsPerTrack[z];
            long index = (sector - zoneFirstSector[z]) % spt;
            long n = Math.min(remaining, spt - index);
            timeNs += offsetInTrackNs(index + n, spt) - offsetInTrackNs(index, spt);
            sector += n;
            remaining -= n;
            if (remaining > 0) {
                long arrive = timeNs + trackSwitchNs;
                // The wait is computed, not assumed: it is zero by construction of the skew.
                timeNs = arrive + rotationalWaitNs(arrive, sector);
            }
        }
        return timeNs - startNs;
    }

    /** Wait at loop time {@code atNs} until {@code sector} comes under the head. */
    long rotationalWaitNs(long atNs, long sector) {
        return Math.floorMod(angleNs(sector) - Math.floorMod(atNs, rotationNs), rotationNs);
    }
}
