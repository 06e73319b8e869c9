package io.blockcache.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Writes the machine's dirty page cache out before a measured {@code bench nbd} cell, so that no cell pays for
 * another server's deferred writes.
 *
 * <p>Why: a server that writes into its file without a FLUSH (nbdkit-file) leaves its pages dirty, and the kernel
 * writes them out 30 s later ({@code vm.dirty_expire_centisecs}) — with 12-s cells, inside the cell of whichever
 * server runs two cells on. Measured here: 4 KiB random writes over 256 MiB left nbdkit's file dirty, and the kernel
 * wrote it out 25–30 s after they began, on the same two cores the next servers and fio run on; the bench's fills left
 * 0.9–1.8 GiB dirty (docs/bench-history/nbd.md "2026-12-04: a settled page cache"). The costs a server causes inside
 * its own cell (blockcache's journal commits flush its cache file every 100 ms) stay in its cell.
 */
final class PageCacheSettle {
    private static final Path MEMINFO = Path.of("/proc/meminfo");
    /** A sync that takes longer than this is reported as a failure rather than waited for. */
    private static final long SYNC_TIMEOUT_SECONDS = 300;

    /**
     * What one settle did.
     *
     * @param dirtyBytesBefore the page cache's dirty bytes before it ({@code Dirty:} of /proc/meminfo), or -1 if
     *     unknown
     * @param elapsedNs how long the sync took
     */
    record Settled(long dirtyBytesBefore, long elapsedNs) {
        @Override
        public String toString() {
            return String.format(Locale.ROOT, "page cache settled: %s MiB dirty written out in %.1f s",
                    dirtyBytesBefore < 0 ? "?" : Long.toString(dirtyBytesBefore >> 20), elapsedNs / 1e9);
        }
    }

    private PageCacheSettle() {
    }

    /**
     * Runs {@code sync} (every file system's dirty pages written out, waited for) and says how much was dirty.
     *
     * @throws IOException if {@code sync} cannot run, fails or hangs
     */
    static Settled settle() throws IOException, InterruptedException {
        long dirtyBytes = dirtyBytes();
        long startNs = System.nanoTime();
        Process sync = new ProcessBuilder(List.of("sync")).redirectErrorStream(true).start();
        if (!sync.waitFor(SYNC_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            sync.destroyForcibly();
            throw new IOException("sync did not finish in " + SYNC_TIMEOUT_SECONDS + " s");
        }
        if (sync.exitValue() != 0) {
            throw new IOException("sync exited with " + sync.exitValue() + ": "
                    + new String(sync.getInputStream().readAllBytes()).trim());
        }
        return new Settled(dirtyBytes, System.nanoTime() - startNs);
    }

    /** The page cache's dirty bytes now, or -1 where /proc/meminfo cannot be read (not Linux). */
    static long dirtyBytes() {
        try {
            return parseDirtyBytes(Files.readAllLines(MEMINFO));
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /**
     * The {@code Dirty:} line of /proc/meminfo, in bytes.
     *
     * @throws IllegalArgumentException if there is no such line or it is not in kB
     */
    static long parseDirtyBytes(List<String> meminfoLines) {
        for (String line : meminfoLines) {
            if (line.startsWith("Dirty:")) {
                String[] fields = line.substring("Dirty:".length()).trim().split("\\s+");
                if (fields.length != 2 || !fields[1].equals("kB")) {
                    throw new IllegalArgumentException("not a Dirty line in kB: " + line);
                }
                return Long.parseLong(fields[0]) * 1024;
            }
        }
        throw new IllegalArgumentException("no Dirty line in /proc/meminfo");
    }
}
