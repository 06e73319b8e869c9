package io.blockcache.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.backinglog.BackingLogRegion;
import io.blockcache.backinglog.ChunkBuffers;
import io.blockcache.backinglog.LogGroupWriter;
import io.blockcache.device.FileDevice;
import io.blockcache.device.FileDeviceOptions;
import io.blockcache.format.BackingHeader;
import io.blockcache.loop.LoopCalls;
import io.blockcache.loop.Prng;
import io.blockcache.loop.RealLoop;
import java.io.PrintWriter;
import java.io.RandomAccessFile;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code blockcache replay-log}: a backing file's pending group put in place without any cache. */
class ReplayLogCommandTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private static CliRun run(String... args) {
        return CliRun.of(args);
    }

    @Test
    void aPendingGroupIsPutInPlaceOnceAndTheLogRetired() throws Exception {
        // Proves the command's whole path on real files: format with a log, a group committed (as writeback leaves
        // it when the cache device dies before the retire), replay-log puts its data in place and retires the log;
        // a second run finds nothing; a backing without a log is refused with the reason.
        Path cache = dir.resolve("cache.img");
        Path backing = dir.resolve("backing.img");
        assertThat(run("format", "--cache", cache.toString(), "--cache-size", "8M", "--bucket-size", "128K",
                "--backing", backing.toString(), "--backing-size", "16M", "--backing-log", "2M").exitCode()).isZero();
        byte[] header = new byte[BackingHeader.BYTES];
        try (RandomAccessFile file = new RandomAccessFile(backing.toFile(), "r")) {
            file.readFully(header);
        }
        BackingLogRegion region = BackingLogRegion.of(BackingHeader.decode(header, 0).value());
        byte[] data = new byte[8192];
        new Prng(5).nextBytes(data);
        try (RealLoop loop = new RealLoop("test-log")) {
            FileDevice device = FileDevice.open(loop, backing, FileDeviceOptions.DEFAULTS);
            String committed = LoopCalls.await(loop, done -> {
                LogGroupWriter writer = new LogGroupWriter(device, region, new ChunkBuffers(), 1, 3);
                LogGroupWriter.Slot slot = writer.reserve(40, 16);
                slot.buffer().put(0, data);
                writer.filled(slot);
                writer.commit(4, done);
            }, WAIT);
            assertThat(committed).isNull();
            LoopCalls.<Boolean>await(loop, done -> {
                device.close();
                done.accept(true);
            }, WAIT);
        }

        CliRun replayed = run("replay-log", "--backing", backing.toString());
        assertThat(replayed.exitCode()).as(replayed.err()).isZero();
        assertThat(replayed.out()).contains("replayed group 1 (flush epochs 3..4, 1 records) and retired the log");
        byte[] inPlace = new byte[8192];
        try (RandomAccessFile file = new RandomAccessFile(backing.toFile(), "r")) {
            file.seek(region.volumeBytes(40));
            file.readFully(inPlace);
        }
        assertThat(Arrays.equals(inPlace, data)).isTrue();
        assertThat(run("replay-log", "--backing", backing.toString()).out()).contains("holds no group");

        Path plain = dir.resolve("plain.img");
        assertThat(run("format", "--cache", dir.resolve("c2.img").toString(), "--cache-size", "8M", "--bucket-size",
                "128K", "--backing", plain.toString(), "--backing-size", "16M").exitCode()).isZero();
        CliRun refused = run("replay-log", "--backing", plain.toString());
        assertThat(refused.exitCode()).isEqualTo(1);
        assertThat(refused.err()).contains("no backing log (formatted without --backing-log)");
    }
}
