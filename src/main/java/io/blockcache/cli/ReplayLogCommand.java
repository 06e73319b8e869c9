package io.blockcache.cli;

import io.blockcache.backinglog.BackingLogRegion;
import io.blockcache.backinglog.LogReplay;
import io.blockcache.device.BlockDevice;
import io.blockcache.device.FileDevice;
import io.blockcache.device.FileDeviceOptions;
import io.blockcache.format.BackingHeader;
import io.blockcache.format.DecodeResult;
import io.blockcache.loop.LoopCalls;
import io.blockcache.loop.RealLoop;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code blockcache replay-log}: puts in place the group a backing file's log holds (docs/FORMAT.md §4.4,
 * docs/WRITEBACK.md "Journaled write-back"), for a backing file to be used after its cache device was lost, without
 * any cache. Writes to the backing file; run it only while no {@code serve} uses the file.
 *
 * <p>Exit status: 0 a group was replayed, or the log held none; 1 the log could not be replayed (damaged,
 * unreadable, or the file has no readable header or no log).
 */
@Command(name = "replay-log", mixinStandardHelpOptions = true,
        description = {"After losing the cache device of a volume with writeback.NAME.ordering=journaled: put in place"
                + " the group its backing log holds, so that the backing file alone is the volume as of a FLUSH.",
                "Writes the backing files: stop serve first. A cache set opening the file, or format --force over"
                + " it, replays the same way."})
final class ReplayLogCommand implements Callable<Integer> {
    /** A log is at most a few GiB read twice: this only turns a lost callback into an error. */
    private static final Duration ENGINE_CALL_TIMEOUT = Duration.ofHours(1);

    @Spec
    private CommandSpec spec;

    @Option(names = "--backing", paramLabel = "FILE", required = true, description = "A backing file; repeatable.")
    private List<Path> backings;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        int status = 0;
        try (RealLoop loop = new RealLoop("blockcache-replay-log")) {
            for (Path file : backings) {
                String outcome = replay(loop, file);
                if (outcome.startsWith("error: ")) {
                    err.println("blockcache replay-log: " + file + ": " + outcome.substring("error: ".length()));
                    status = 1;
                } else {
                    out.println(file + ": " + outcome);
                }
            }
        }
        out.flush();
        return status;
    }

    /** Replays {@code file}'s log; returns what happened, or "error: " and why not. */
    private static String replay(RealLoop loop, Path file) {
        BlockDevice device;
        try {
            device = FileDevice.open(loop, file, FileDeviceOptions.DEFAULTS.withQueueDepth(4)
                    .withLogicalBlockBytes(512));
        } catch (IOException e) {
            return "error: cannot open: " + e.getMessage();
        }
        try {
            ByteBuffer block = ByteBuffer.allocate(BackingHeader.BYTES);
            String read = LoopCalls.await(loop, done -> device.read(0, block, r -> done.accept(r.ok() ? null
                    : r.message())), ENGINE_CALL_TIMEOUT);
            if (read != null) {
                return "error: cannot read the backing header: " + read;
            }
            DecodeResult<BackingHeader> header = BackingHeader.decode(block.array(), 0);
            if (!header.isOk()) {
                return "error: no valid backing header (" + header.error().message() + ")";
            }
            BackingLogRegion region = BackingLogRegion.of(header.value());
            if (region == null) {
                return "error: no backing log (formatted without --backing-log): nothing to replay";
            }
            LogReplay.Result result = LoopCalls.await(loop, done -> LogReplay.run(device, region, done),
                    ENGINE_CALL_TIMEOUT);
            if (result.failure() != null) {
                return "error: " + result.failure();
            }
            return result.commit() == null ? "the backing log holds no group; nothing to replay"
                    : "replayed group " + result.commit().sequence() + " (flush epochs " + result.commit().firstEpoch()
                            + ".." + result.commit().lastEpoch() + ", " + result.commit().recordCount()
                            + " records) and retired the log";
        } finally {
            LoopCalls.<Boolean>await(loop, done -> {
                device.close();
                done.accept(true);
            }, ENGINE_CALL_TIMEOUT);
        }
    }
}
