package io.blockcache.fuzz;

import io.blockcache.engine.CacheSet;
import io.blockcache.index.ExtentLocation;
import io.blockcache.index.LookupVisitor;

/**
 * A sector to watch while replaying a seed: requests to it on its volume's backing device go into the trace.
 *
 * @param volume volume index (0 for {@code vol0})
 * @param sector sector within the volume
 */
public record FuzzWatch(int volume, long sector) {
    /** Parses {@code volN:SECTOR}. */
    public static FuzzWatch parse(String text) {
        String[] parts = text.split(":");
        if (parts.length != 2 || !parts[0].startsWith("vol")) {
            throw new IllegalArgumentException("expected volN:SECTOR, e.g. vol1:1472, got \"" + text + "\"");
        }
        return new FuzzWatch(Integer.parseInt(parts[0].substring(3)), Long.parseLong(parts[1]));
    }

    /**
     * What the watched sector is in {@code set} now: its extent's location and bucket (generation, state, live
     * sectors) or "not cached", and how far the journal is durable.
     */
    String describe(CacheSet set) {
        StringBuilder text = new StringBuilder();
        set.volume(FuzzSetup.volumeName(volume)).index().lookup(sector, 1, new LookupVisitor() {
            @Override
            public void hole(long start, int length) {
                text.append("not cached");
            }

            @Override
            public void extent(long start, int length, long location, int crc32c, int crcOffset, int crcLength) {
                text.append(ExtentLocation.toString(location));
                int bucket = ExtentLocation.bucket(location);
                var table = set.space().table();
                text.append(" (bucket now gen ").append(table.generation(bucket)).append(", ")
                        .append(table.state(bucket)).append(", live ").append(table.liveSectors(bucket)).append(")");
            }
        });
        var journal = set.journal();
        return text + ", journal durable through " + journal.durableSequence() + " of " + journal.openSequence();
    }
}
