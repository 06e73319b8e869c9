package io.blockcache.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.zip.GZIPInputStream;

/**
 * Readers of published block-trace formats, by name; a file ending in {@code .gz} is decompressed on the fly.
 * Each line that does not parse as a record (a header, a blank line) is skipped; a file with no record at all is
 * an error.
 *
 * <ul>
 *   <li>{@code msr}: the MSR Cambridge traces (SNIA IOTTA): {@code Timestamp,Hostname,DiskNumber,Type,Offset,
 *       Size,ResponseTime}, Type {@code Read}/{@code Write}, Offset and Size in bytes.</li>
 *   <li>{@code cloudphysics}: CloudPhysics VMware vscsi traces as libCacheSim's CSV: {@code version,time,op,size,
 *       lbn}, op a SCSI opcode in hex (28/88/a8 read, 2a/8a/aa write), size in bytes, lbn in 512-byte
 *       sectors.</li>
 *   <li>{@code systor}: the SYSTOR '17 traces (SNIA IOTTA): {@code Timestamp,Response,IOType,LUN,Offset,Size},
 *       IOType {@code R}/{@code W}, Offset and Size in bytes.</li>
 *   <li>{@code blocks}: one 4 KiB block number per line, each a one-block read (libCacheSim's plain-text form).</li>
 * </ul>
 */
final class TraceReaders {
    /** The format names {@link #read} accepts. */
    static final List<String> FORMATS = List.of("msr", "cloudphysics", "systor", "blocks");

    private TraceReaders() {
    }

    /** Reads {@code file} in {@code format}, keeping at most {@code requestsMax} requests. */
    static BlockTrace read(Path file, String format, String name, int requestsMax) throws IOException {
        try (InputStream raw = Files.newInputStream(file)) {
            InputStream in = file.getFileName().toString().endsWith(".gz") ? new GZIPInputStream(raw, 1 << 16) : raw;
            return read(in, format, name, requestsMax);
        }
    }

    /** Reads a stream in {@code format}, keeping at most {@code requestsMax} requests. */
    static BlockTrace read(InputStream in, String format, String name, int requestsMax) throws IOException {
        String kind = format.toLowerCase(Locale.ROOT);
        if (!FORMATS.contains(kind)) {
            throw new IllegalArgumentException("unknown trace format '" + format + "'; known: " + FORMATS);
        }
        BlockTrace.Builder builder = new BlockTrace.Builder(name);
        int records = 0;
        BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.US_ASCII), 1 << 16);
        for (String line = reader.readLine(); line != null && records < requestsMax; line = reader.readLine()) {
            if (parse(kind, line.trim(), builder)) {
                records++;
            }
        }
        if (records == 0) {
            throw new IOException("no " + kind + " record in trace " + name);
        }
        return builder.build();
    }

    /** Adds the record on {@code line} to {@code builder}; false if the line is not a record. */
    static boolean parse(String format, String line, BlockTrace.Builder builder) {
        if (line.isEmpty() || !Character.isDigit(line.charAt(0))) {
            return false; // a header or a blank line
        }
        String[] f = line.split(",");
        try {
            switch (format) {
                case "msr" -> {
                    if (f.length < 6) {
                        return false;
                    }
                    builder.addBytes(Long.parseLong(f[4]), Math.max(1, Long.parseLong(f[5])),
                            f[3].equalsIgnoreCase("Write"));
                }
                case "cloudphysics" -> {
                    if (f.length < 5) {
                        return false;
                    }
                    int op = Integer.parseInt(f[2].trim(), 16);
                    boolean write = op == 0x2a || op == 0x8a || op == 0xaa;
                    boolean read = op == 0x28 || op == 0x88 || op == 0xa8;
                    if (!write && !read) {
                        return false; // other SCSI commands carry no data
                    }
                    builder.addBytes(Long.parseLong(f[4].trim()) * 512, Math.max(1, Long.parseLong(f[3].trim())),
                            write);
                }
                case "systor" -> {
                    if (f.length < 6) {
                        return false;
                    }
                    builder.addBytes(Long.parseLong(f[4]), Math.max(1, Long.parseLong(f[5])),
                            f[2].trim().equalsIgnoreCase("W"));
                }
                default -> builder.addBlocks(Long.parseLong(f[0].trim()), 1, false);
            }
        } catch (NumberFormatException e) {
            return false;
        }
        return true;
    }
}
