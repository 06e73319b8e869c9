package io.blockcache.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU time the host took from this virtual machine ("steal", the eighth figure of {@code /proc/stat}'s {@code cpu}
 * line), as a share of all CPU time between two samples. On the bench machine the host at times stole 3–16 s of CPU
 * in a 40-s run, and one build's IOPS then swung from 27 k to 77 k (docs/bench-history/nbd.md "2026-12-03: the
 * dirty-overlap look-up put off"): a ratio measured under steal measures the host, so {@code bench nbd} reports the
 * steal of every measured part beside its numbers.
 */
final class HostSteal {
    /** Above this share a row's figures say more about the host than about the servers. */
    static final double NOISY_PERCENT = 5.0;
    private static final Path PROC_STAT = Path.of("/proc/stat");

    /**
     * Clock ticks of the whole machine at one moment.
     *
     * @param stealTicks ticks the host took
     * @param totalTicks ticks of every kind (user, nice, system, idle, iowait, irq, softirq, steal)
     */
    record Sample(long stealTicks, long totalTicks) {
    }

    private HostSteal() {
    }

    /** The machine's ticks now, or null where {@code /proc/stat} cannot be read (not Linux). */
    static Sample sample() {
        try {
            return parse(Files.readAllLines(PROC_STAT).get(0));
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * Parses {@code /proc/stat}'s first line ({@code cpu  user nice system idle iowait irq softirq steal ...}).
     *
     * @throws IllegalArgumentException if it is not that line
     */
    static Sample parse(String cpuLine) {
        String[] fields = cpuLine.trim().split("\\s+");
        if (fields.length < 9 || !fields[0].equals("cpu")) {
            throw new IllegalArgumentException("not the cpu line of /proc/stat: " + cpuLine);
        }
        long total = 0;
        for (int i = 1; i <= 8; i++) {
            total += Long.parseLong(fields[i]); // guest time (fields 9, 10) is already counted in user and nice
        }
        return new Sample(Long.parseLong(fields[8]), total);
    }

    /** Steal between two samples as a percentage of all CPU time; NaN if either is missing or no time passed. */
    static double percent(Sample before, Sample after) {
        if (before == null || after == null || after.totalTicks() <= before.totalTicks()) {
            return Double.NaN;
        }
        return 100.0 * (after.stealTicks() - before.stealTicks()) / (after.totalTicks() - before.totalTicks());
    }
}
