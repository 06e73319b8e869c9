package io.blockcache.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * The slow backings of {@code bench backing}: {@code nbdkit memory} behind its {@code delay} filter,
 * {@link BackingBench#DELAY_MS} ms per read and per write, served two ways.
 */
enum SlowBacking {
    /**
     * One request at a time, 4 ms each (250 IOPS): a disk with one head, the "4 ms per request". nbdkit's
     * {@code noparallel} filter with {@code serialize=all-requests} holds every request, whatever its connection,
     * until the one before it is answered; it sits in front of the delay, so the delays add up.
     */
    DISK("disk", List.of("--filter=noparallel", "--filter=delay"), List.of("serialize=all-requests")),
    /**
     * Every request at once, 4 ms each: a store with many spindles or a remote service. nbdkit runs up to 16
     * requests in parallel threads, so at iodepth 16 the bare backing does ~4,000 IOPS, not 250.
     */
    PARALLEL("parallel", List.of("--filter=delay"), List.of());

    private final String label;
    private final List<String> filters;
    private final List<String> pluginArgs;

    SlowBacking(String label, List<String> filters, List<String> pluginArgs) {
        this.label = label;
        this.filters = filters;
        this.pluginArgs = pluginArgs;
    }

    /** The name the table, the JSON and the chart use. */
    String label() {
        return label;
    }

    /** nbdkit's arguments after its options: filters, {@code memory SIZE}, the filters' parameters. */
    List<String> nbdkitArgs(long sizeBytes, int delayMs) {
        List<String> args = new ArrayList<>(filters);
        args.add("memory");
        args.add(Long.toString(sizeBytes));
        args.addAll(pluginArgs);
        args.add("delay-read=" + delayMs + "ms");
        args.add("delay-write=" + delayMs + "ms");
        return args;
    }
}
