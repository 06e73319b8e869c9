package io.blockcache.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU time and peak resident memory of a server process, from Linux's {@code /proc} (proc(5)): user + system
 * time of all its threads ({@code /proc/PID/stat} fields 14 and 15, in clock ticks) and the high-water mark of
 * its resident set ({@code VmHWM} in {@code /proc/PID/status}). Why /proc and not the JVM's MXBeans: the same
 * numbers for every server, Java or not.
 */
final class ProcessMeter {
    /** {@code getconf CLK_TCK}: 100 on every Linux we run on; read once in case it is not. */
    private static final long TICKS_PER_SECOND = ticksPerSecond();

    private final long pid;

    ProcessMeter(long pid) {
        this.pid = pid;
    }

    /** User + system CPU time of the process so far, nanoseconds (resolution: one clock tick, 10 ms). */
    long cpuNs() throws IOException {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.US_ASCII);
        // Field 2 (comm) is in parentheses and may contain spaces: count fields after its closing one.
        String[] after = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        long ticks = Long.parseLong(after[11]) + Long.parseLong(after[12]); // fields 14 utime, 15 stime
        return ticks * 1_000_000_000L / TICKS_PER_SECOND;
    }

    /** Peak resident set size so far ({@code VmHWM}), bytes. */
    long peakRssBytes() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
            if (line.startsWith("VmHWM:")) {
                return Long.parseLong(line.substring(6).trim().split("\\s+")[0]) * 1024;
            }
        }
        throw new IOException("no VmHWM in /proc/" + pid + "/status");
    }

    private static long ticksPerSecond() {
        try {
            Process process = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
            String text = new String(process.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
            return process.waitFor() == 0 ? Long.parseLong(text) : 100;
        } catch (IOException | NumberFormatException e) {
            return 100;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 100;
        }
    }
}
