package io.blockcache.fuzz;

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
}
