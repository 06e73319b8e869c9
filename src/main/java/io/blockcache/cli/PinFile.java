package io.blockcache.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The pinned ranges of {@code serve}'s volumes, kept in the data directory across restarts (docs/CACHING.md
 * "Pinning"): one line per range, {@code OFFSET_BYTES LENGTH_BYTES NAME}, rewritten whole on every change. Why a file
 * of its own and not the cache's metadata: a pin is the operator's configuration, not cached state; it must survive
 * an unclean stop (which drops clean extents, docs/FORMAT.md §7 rule 10) and a cache re-format, and the superblock has
 * no room for a list of ranges per volume.
 *
 * <p>Thread rule: any thread but a loop's (blocking file I/O); the caller serialises writers.
 */
final class PinFile {
    /** The file's name in the data directory. */
    static final String NAME = "pins.txt";
    private static final String HEADER = "# blockcache pinned ranges: OFFSET_BYTES LENGTH_BYTES NAME, rewritten by"
            + " serve on every pin and unpin (docs/CACHING.md \"Pinning\")\n";

    /** One pinned range. */
    record Pin(String volume, long offsetBytes, long lengthBytes) {
    }

    private final Path file;

    PinFile(Path file) {
        this.file = file;
    }

    /** Where the file is. */
    Path path() {
        return file;
    }

    /** The pins saved, in file order; none if there is no file. */
    List<Pin> read() throws IOException {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return List.of();
        }
        List<Pin> pins = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] fields = line.split(" ", 3);
            try {
                pins.add(new Pin(fields[2], Long.parseLong(fields[0]), Long.parseLong(fields[1])));
            } catch (RuntimeException bad) {
                throw new IOException(file + " line " + (i + 1) + ": not OFFSET_BYTES LENGTH_BYTES NAME: " + line);
            }
        }
        return pins;
    }

    /** Replaces the file with {@code pins} (atomically: a crash leaves the old list or the new one). */
    void save(List<Pin> pins) throws IOException {
        StringBuilder text = new StringBuilder(HEADER);
        for (Pin pin : pins) {
            text.append(pin.offsetBytes()).append(' ').append(pin.lengthBytes()).append(' ').append(pin.volume())
                    .append('\n');
        }
        AtomicFile.replace(file, text.toString().getBytes(StandardCharsets.UTF_8));
    }
}
