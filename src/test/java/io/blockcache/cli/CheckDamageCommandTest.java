package io.blockcache.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.device.FileDevice;
import io.blockcache.device.FileDeviceOptions;
import io.blockcache.device.IoResult;
import io.blockcache.engine.BackingSpec;
import io.blockcache.engine.CacheSet;
import io.blockcache.engine.CacheSetOptions;
import io.blockcache.engine.Outcome;
import io.blockcache.loop.LoopCalls;
import io.blockcache.loop.Prng;
import io.blockcache.loop.RealLoop;
import io.blockcache.volume.Volume;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code blockcache check --damage} end to end on files: the engine writes through a cache file, the cache file
 * is lost, and the backing file alone says which ranges are stale (docs/WRITEBACK.md "When a device fails").
 */
class CheckDamageCommandTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final long MIB = 1 << 20;
    /** Volume sectors per 1 MiB region. */
    private static final long REGION_SECTORS = MIB / 512;
    /** Where the volume starts in the backing file (FORMAT.md §4). */
    private static final long DATA_OFFSET_BYTES = MIB;

    @TempDir
    Path dir;

    private Path cache() {
        return dir.resolve("cache.img");
    }

    private Path backing() {
        return dir.resolve("backing.img");
    }

    private void format() {
        CliRun formatted = CliRun.of("format", "--cache", cache().toString(), "--cache-size", "8M", "--bucket-size",
                "128K", "--backing", backing().toString(), "--backing-size", "16M");
        assertThat(formatted.exitCode()).as(formatted.err()).isZero();
    }

    /** One write: where and what. */
    private record Write(long offsetBytes, byte[] data) {
    }

    /** What a test does with the cache set open on the files (on the test thread; the set's calls via the loop). */
    private interface OnOpenSet {
        void run(RealLoop loop, CacheSet set);
    }

    /**
     * Opens the files with writeback paused ({@link KeepDirty}), runs {@code action}, then closes the devices without a
     * shutdown unless the action made one: the process dies with whatever is dirty still in the cache.
     */
    private void onOpenSet(OnOpenSet action) throws IOException {
        try (RealLoop loop = new RealLoop("damage-test")) {
            FileDevice cacheDevice = FileDevice.open(loop, cache(), FileDeviceOptions.DEFAULTS);
            FileDevice backingDevice = FileDevice.open(loop, backing(), FileDeviceOptions.DEFAULTS);
            try {
                CacheSetOptions options = CacheSetOptions.defaults().withBucketSizeBytes(128 << 10).withDamageMap(true);
                CacheSet set = LoopCalls.<Outcome<CacheSet>>await(loop, done -> CacheSet.open(loop, cacheDevice,
                        List.of(new BackingSpec("default", backingDevice)), options, done), WAIT).orThrow();
                LoopCalls.<Void>await(loop, done -> {
                    KeepDirty.on(set, "default");
                    done.accept(null);
                }, WAIT);
                action.run(loop, set);
            } finally {
                LoopCalls.<Void>await(loop, done -> {
                    cacheDevice.close();
                    backingDevice.close();
                    done.accept(null);
                }, WAIT);
            }
        }
    }

    /**
     * Opens the files, pauses writeback, makes {@code writes} and a FLUSH; then drains and shuts down cleanly if
     * asked, else just stops (the process dies with the data dirty in the cache).
     */
    private void run(List<Write> writes, boolean drainAndShutDown) throws IOException {
        onOpenSet((loop, set) -> {
            Volume volume = set.volumes().get(0);
            for (Write write : writes) {
                assertThat(LoopCalls.<IoResult>await(loop, done -> volume.write(write.offsetBytes(),
                        ByteBuffer.wrap(write.data()), false, done::accept), WAIT)).isEqualTo(IoResult.OK);
            }
            assertThat(LoopCalls.<IoResult>await(loop, done -> volume.flush(done::accept), WAIT))
                    .isEqualTo(IoResult.OK);
            if (drainAndShutDown) {
                assertThat(LoopCalls.<IoResult>await(loop, done -> set.drain("default", progress -> { },
                        done::accept), WAIT)).isEqualTo(IoResult.OK);
                assertThat(LoopCalls.<IoResult>await(loop, done -> set.shutdown(done::accept), WAIT))
                        .isEqualTo(IoResult.OK);
            }
        });
    }

    @Test
    void afterLosingTheCacheFileTheStaleRangesAreExactlyTheDirtyRegions() throws IOException {
        // Proves the whole path: writes that were only in the cache are found stale on the backing file after the
        // cache file is gone, every backing sector that differs from the written data lies in a listed range, and
        // the ranges are exactly the 1 MiB regions the writes touched (text and JSON; exit 1).
        format();
        List<Write> writes = List.of(new Write(0, pattern(1, 64 << 10)),
                new Write(5 * MIB + 4096, pattern(2, 4096)),
                new Write(9 * MIB + MIB / 2, pattern(3, (int) MIB)));
        run(writes, false);
        Files.delete(cache()); // the cache device dies

        byte[] volume = Arrays.copyOfRange(Files.readAllBytes(backing()), (int) DATA_OFFSET_BYTES,
                (int) (DATA_OFFSET_BYTES + 16 * MIB));
        long[][] expected = {{0, REGION_SECTORS}, {5 * REGION_SECTORS, REGION_SECTORS},
            {9 * REGION_SECTORS, 2 * REGION_SECTORS}};
        for (Write write : writes) {
            for (int s = 0; s < write.data().length / 512; s++) {
                long sector = write.offsetBytes() / 512 + s;
                boolean differs = !Arrays.equals(volume, (int) sector * 512, (int) sector * 512 + 512, write.data(),
                        s * 512, s * 512 + 512);
                if (differs) {
                    assertThat(inside(sector, expected)).as("stale sector %s is listed", sector).isTrue();
                }
            }
        }

        CliRun text = CliRun.of("check", "--damage", "--backing", "default=" + backing());
        assertThat(text.exitCode()).as(text.out() + text.err()).isEqualTo(1);
        assertThat(text.out()).contains("3 stale ranges, 4.0 MiB")
                .contains("stale   LBA 0 +2048 sectors")
                .contains("stale   LBA 10240 +2048 sectors")
                .contains("stale   LBA 18432 +4096 sectors");
        CliRun json = CliRun.of("check", "--damage", "--json", "--backing", "default=" + backing());
        assertThat(json.exitCode()).isEqualTo(1);
        assertThat(json.out()).contains("\"verdict\":\"stale\"").contains("\"staleBytes\":4194304")
                .contains("{\"startSector\":18432,\"lengthSectors\":4096,\"offsetBytes\":9437184,"
                        + "\"lengthBytes\":2097152}");
    }

    @Test
    void afterADrainAndACleanShutdownNothingIsStale() throws IOException {
        // Proves clearing: once the dirty data is written back and the backing file flushed, the shutdown's sweep
        // leaves an empty map, and check --damage says so with exit 0.
        format();
        run(List.of(new Write(2 * MIB, pattern(4, 64 << 10))), true);
        Files.delete(cache());
        CliRun text = CliRun.of("check", "--damage", "--backing", "default=" + backing());
        assertThat(text.exitCode()).as(text.out() + text.err()).isZero();
        assertThat(text.out()).contains("nothing stale").doesNotContain("stale   LBA");
    }

    @Test
    void anOrderedVolumeIsConsistentAfterLosingTheCacheFileThoughItsLastEpochWasNeverWrittenBack() throws IOException {
        // Proves with ordering=epochs, one epoch written back and a newer one still dirty when the
        // cache file is lost, check --damage says consistent as of a flush epoch and exits 0: the backing file holds
        // the first write and nothing of the second, an older state of the volume, not a damaged one.
        format();
        byte[] older = pattern(5, 64 << 10);
        byte[] newer = pattern(6, 4096);
        onOpenSet((loop, set) -> {
            LoopCalls.<Void>await(loop, done -> {
                set.knobs().find("writeback.default.ordering").set("epochs");
                done.accept(null);
            }, WAIT);
            Volume volume = set.volumes().get(0);
            writeAndFlush(loop, volume, 0, older);
            assertThat(LoopCalls.<IoResult>await(loop, done -> set.drain("default", progress -> { }, done::accept),
                    WAIT)).isEqualTo(IoResult.OK);
            writeAndFlush(loop, volume, 5 * MIB, newer);
            assertThat(LoopCalls.<IoResult>await(loop, done -> volume.damageMap().sweep(done::accept), WAIT))
                    .isEqualTo(IoResult.OK);
        });
        Files.delete(cache()); // the cache device dies with the newer epoch dirty in it

        byte[] file = Files.readAllBytes(backing());
        assertThat(Arrays.copyOfRange(file, (int) DATA_OFFSET_BYTES, (int) DATA_OFFSET_BYTES + older.length))
                .isEqualTo(older);
        assertThat(Arrays.copyOfRange(file, (int) (DATA_OFFSET_BYTES + 5 * MIB),
                (int) (DATA_OFFSET_BYTES + 5 * MIB) + newer.length)).isEqualTo(new byte[newer.length]);
        CliRun text = CliRun.of("check", "--damage", "--backing", "default=" + backing());
        assertThat(text.exitCode()).as(text.out() + text.err()).isZero();
        assertThat(text.out()).contains("consistent as of flush epoch").doesNotContain("stale   LBA");
    }

    private static void writeAndFlush(RealLoop loop, Volume volume, long offsetBytes, byte[] data) {
        assertThat(LoopCalls.<IoResult>await(loop, done -> volume.write(offsetBytes, ByteBuffer.wrap(data), false,
                done::accept), WAIT)).isEqualTo(IoResult.OK);
        assertThat(LoopCalls.<IoResult>await(loop, done -> volume.flush(done::accept), WAIT)).isEqualTo(IoResult.OK);
    }

    @Test
    void badInputGetsAOneLineErrorAndItsOwnExitStatus() throws IOException {
        // Proves each bad input is refused with one clear line: no backing given (2), both modes at once (2), a
        // missing file (3), a file that is no blockcache backing device (3, everything listed as unknown).
        CliRun none = CliRun.of("check", "--damage");
        assertThat(none.exitCode()).isEqualTo(2);
        assertThat(none.err().strip().lines().count()).isEqualTo(1);
        CliRun both = CliRun.of("check", "--damage", "--cache", "x.img", "--backing", "b.img");
        assertThat(both.exitCode()).isEqualTo(2);
        assertThat(both.err()).contains("no --cache");
        CliRun missing = CliRun.of("check", "--damage", "--backing", "v=" + dir.resolve("absent.img"));
        assertThat(missing.exitCode()).isEqualTo(3);
        assertThat(missing.err()).contains("cannot open backing file");
        Path zeros = dir.resolve("zeros.img");
        Files.write(zeros, new byte[2 << 20]);
        CliRun foreign = CliRun.of("check", "--damage", "--backing", zeros.toString());
        assertThat(foreign.exitCode()).isEqualTo(3);
        assertThat(foreign.out()).contains("backing \"zeros.img\"").contains("PROBLEM no valid backing header");
    }

    private static boolean inside(long sector, long[][] ranges) {
        for (long[] range : ranges) {
            if (sector >= range[0] && sector < range[0] + range[1]) {
                return true;
            }
        }
        return false;
    }

    private static byte[] pattern(int seed, int bytes) {
        byte[] data = new byte[bytes];
        new Prng(seed).nextBytes(data);
        return data;
    }
}
