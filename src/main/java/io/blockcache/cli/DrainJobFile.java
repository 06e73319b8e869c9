package io.blockcache.cli;

import io.blockcache.admin.DrainJobRecord;
import io.blockcache.admin.DrainJobStore;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.TreeSet;

/**
 * The drain jobs of {@code serve}, kept across restarts in {@code DIR/drain-jobs.properties} (docs/WRITEBACK.md,
 * "Drain jobs"): a properties file, one group of keys per volume —
 * <pre>
 *   version=1
 *   drain.default.state=running            running, paused, cancelled, done or failed
 *   drain.default.rateMaxBytesPerSecond=0  0 = no cap
 *   drain.default.deadlineEpochMs=0        wall-clock ms since 1970 (UTC); 0 = no deadline
 *   drain.default.error=...                absent unless failed or cancelled
 * </pre>
 * Written whole on every change: a temporary file is written and forced to disk, renamed over the old one
 * atomically, and the directory is forced, so a crash leaves the old file or the new one, never a torn one.
 *
 * <p>Thread rule: {@link #save} on the admin server's writer thread; {@link #read} once at start.
 */
final class DrainJobFile implements DrainJobStore {
    /** Its name in the data directory. */
    static final String NAME = "drain-jobs.properties";
    static final int VERSION = 1;
    private static final String PREFIX = "drain.";
    private static final String[] FIELDS = {"state", "rateMaxBytesPerSecond", "deadlineEpochMs", "error"};

    private final Path file;

    DrainJobFile(Path file) {
        this.file = file;
    }

    /** The file's path. */
    Path path() {
        return file;
    }

    /**
     * The saved jobs, none if there is no file.
     *
     * @throws IOException if the file cannot be read or is not a drain-job file of a version we know
     */
    List<DrainJobRecord> read() throws IOException {
        Properties properties = new Properties();
        try (InputStream in = Files.newInputStream(file)) {
            properties.load(in);
        } catch (NoSuchFileException absent) {
            return List.of();
        }
        if (!String.valueOf(VERSION).equals(properties.getProperty("version"))) {
            throw new IOException(file + ": version " + properties.getProperty("version") + ", expected " + VERSION);
        }
        TreeSet<String> volumes = new TreeSet<>();
        for (String key : properties.stringPropertyNames()) {
            if (key.startsWith(PREFIX) && key.endsWith(".state")) {
                volumes.add(key.substring(PREFIX.length(), key.length() - ".state".length()));
            }
        }
        List<DrainJobRecord> records = new ArrayList<>();
        try {
            for (String volume : volumes) {
                String p = PREFIX + volume + ".";
                records.add(new DrainJobRecord(volume, properties.getProperty(p + "state"),
                        Long.parseLong(properties.getProperty(p + "rateMaxBytesPerSecond", "0")),
                        Long.parseLong(properties.getProperty(p + "deadlineEpochMs", "0")),
                        properties.getProperty(p + "error")));
            }
        } catch (IllegalArgumentException damaged) {
            throw new IOException(file + ": " + damaged.getMessage());
        }
        return records;
    }

    @Override
    public void save(List<DrainJobRecord> jobs) throws IOException {
        StringBuilder text = new StringBuilder("# blockcache drain jobs, rewritten by serve on every change"
                + " (docs/WRITEBACK.md, \"Drain jobs\")\nversion=" + VERSION + "\n");
        for (DrainJobRecord job : jobs) {
            String p = PREFIX + escape(job.volume(), true) + ".";
            String[] values = {job.state(), String.valueOf(job.rateMaxBytesPerSecond()),
                    String.valueOf(job.deadlineEpochMs()), job.error()};
            for (int i = 0; i < FIELDS.length; i++) {
                if (values[i] != null) {
                    text.append(p).append(FIELDS[i]).append('=').append(escape(values[i], false)).append('\n');
                }
            }
        }
        AtomicFile.replace(file, text.toString().getBytes(StandardCharsets.ISO_8859_1));
    }

    /** Properties escaping: backslash, line breaks, separators in keys, and everything outside printable ASCII. */
    static String escape(String value, boolean key) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20 || c > 0x7e) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else if ((key && (c == '=' || c == ':' || c == ' ')) || (i == 0 && (c == '#' || c == '!'
                            || c == ' '))) {
                        out.append('\\').append(c);
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.toString();
    }
}
