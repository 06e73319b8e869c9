package io.blockcache.cli;

import io.blockcache.sim.DeviceCharacterization;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code blockcache simulate devices [--json] [--seed N]}: characterizes the simulated HDD, SSD and object store
 * (random 4 KiB IOPS at queue depths 1/4/32, sequential MB/s, HDD zone rates, the store's GET latency, partial- and
 * whole-chunk writes) in virtual time and prints a table, or one JSON object per row.
 */
@Command(name = "devices",
        description = "Characterize the simulated HDD, SSD and object-store models (virtual time).",
        mixinStandardHelpOptions = true)
final class SimulateDevicesCommand implements Callable<Integer> {
    @Option(names = "--json", description = "Print one JSON object per row instead of a table.")
    private boolean json;

    @Option(names = "--seed", defaultValue = "1",
            description = "Seed of the random offsets (default: ${DEFAULT-VALUE}).")
    private long seed;

    @Override
    public Integer call() {
        List<DeviceCharacterization.Row> rows = DeviceCharacterization.run(seed);
        if (json) {
            for (DeviceCharacterization.Row row : rows) {
                System.out.println(row.toJson());
            }
        } else {
            System.out.print(DeviceCharacterization.formatTable(rows));
        }
        return 0;
    }
}
