package io.blockcache.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.FileDevice;
import io.blockcache.device.FileDeviceOptions;
import io.blockcache.device.IoResult;
import io.blockcache.engine.BackingSpec;
import io.blockcache.engine.CacheSet;
import io.blockcache.engine.CacheSetOptions;
import io.blockcache.engine.Outcome;
import io.blockcache.format.JournalScanner;
import io.blockcache.journal.JournalRecovery;
import io.blockcache.loop.Prng;
import io.blockcache.loop.LoopCalls;
import io.blockcache.loop.RealLoop;
import io.blockcache.volume.Volume;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.RandomAccessFile;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class FormatCheckCommandTest {
    /** Bucket size used by these tests: the smallest allowed, so an 8 MiB cache has 56 buckets. */
    private static final int BUCKET_BYTES = 128 << 10;
    /** The journal ring starts at bucket 0, right after the 1 MiB superblock area. */
    private static final long RING_START_BYTES = 1 << 20;
    /** Longest wait for one engine call on small files: a lost callback fails the test instead of hanging it. */
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private static CliRun run(String... args) {
        return CliRun.of(args);
    }

    private Path cache() {
        return dir.resolve("cache.img");
    }

    private Path backing() {
        return dir.resolve("backing.img");
    }

    private CliRun formatFresh(String... extra) {
        String[] base = {"format", "--cache", cache().toString(), "--cache-size", "8M", "--backing",
                backing().toString(), "--backing-size", "16M", "--bucket-size", "128K"};
        String[] args = new String[base.length + extra.length];
        System.arraycopy(base, 0, args, 0, base.length);
        System.arraycopy(extra, 0, args, base.length, extra.length);
        return run(args);
    }

    private static long jsonLong(String json, String key) {
        Matcher matcher = Pattern.compile("\"" + key + "\":(-?\\d+)").matcher(json);
        assertThat(matcher.find()).as("field %s in %s", key, json).isTrue();
        return Long.parseLong(matcher.group(1));
    }

    /** Writes through a real CacheSet on the files: 64 KiB at 0, then three 4 KiB FUA overwrites, then a flush. */
    private void writeThroughCacheSet() {
        writeThroughCacheSet(false);
    }

    /** As {@link #writeThroughCacheSet()}, then a clean shutdown (checkpoint, clean flag) if asked. */
    private void writeThroughCacheSet(boolean shutdown) {
        try (RealLoop loop = new RealLoop("test-writer")) {
            FileDevice cacheDevice = FileDevice.open(loop, cache(), FileDeviceOptions.DEFAULTS);
            FileDevice backingDevice = FileDevice.open(loop, backing(), FileDeviceOptions.DEFAULTS);
            try {
                CacheSetOptions options = CacheSetOptions.defaults().withBucketSizeBytes(BUCKET_BYTES);
                Outcome<CacheSet> opened = LoopCalls.await(loop, done -> CacheSet.open(loop, cacheDevice,
                        List.of(new BackingSpec("default", backingDevice)), options, done), WAIT);
                Volume volume = opened.orThrow().volumes().get(0);
                // Writeback would clean the data before check looks (a race on file devices), and latency on a
                // loaded machine would send writes around the cache: keep them dirty.
                LoopCalls.<Void>await(loop, done -> {
                    KeepDirty.on(opened.orThrow(), "default");
                    done.accept(null);
                }, WAIT);
                assertThat(write(loop, volume, 0, pattern(1, 64 << 10), false)).isEqualTo(IoResult.OK);
                for (int i = 0; i < 3; i++) {
                    assertThat(write(loop, volume, 8192 + i * 16384, pattern(2 + i, 4096), true))
                            .isEqualTo(IoResult.OK);
                }
                assertThat(LoopCalls.<IoResult>await(loop, done -> volume.flush(done::accept), WAIT))
                        .isEqualTo(IoResult.OK);
                if (shutdown) {
                    assertThat(LoopCalls.<IoResult>await(loop, done -> opened.orThrow().shutdown(done::accept), WAIT))
                            .isEqualTo(IoResult.OK);
                }
            } finally {
                LoopCalls.<Void>await(loop, done -> {
                    cacheDevice.close();
                    backingDevice.close();
                    done.accept(null);
                }, WAIT);
            }
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static IoResult write(RealLoop loop, Volume volume, long offset, byte[] data, boolean fua) {
        return LoopCalls.await(loop, done -> volume.write(offset, ByteBuffer.wrap(data), fua, done::accept), WAIT);
    }

    private static byte[] pattern(int seed, int bytes) {
        byte[] data = new byte[bytes];
        new Prng(seed).nextBytes(data);
        return data;
    }

    private void flipByte(long offsetBytes) throws IOException {
        try (RandomAccessFile file = new RandomAccessFile(cache().toFile(), "rw")) {
            file.seek(offsetBytes);
            int value = file.read();
            file.seek(offsetBytes);
            file.write(value ^ 0x5A);
        }
    }

    @Test
    void formatThenCheckAFreshCacheIsConsistentWithNoExtents() {
        // Proves format creates a cache set check accepts: consistent, nothing cached, all data buckets free.
        CliRun format = formatFresh();
        assertThat(format.exitCode()).as(format.err()).isZero();
        assertThat(format.out()).contains("formatted cache set", "56 buckets of 128.0 KiB", "4 journal buckets",
                "\"default\"", "16.0 MiB");
        assertThat(Files.exists(backing())).isTrue();

        CliRun check = run("check", "--cache", cache().toString());
        assertThat(check.exitCode()).as(check.out()).isZero();
        assertThat(check.out()).contains("consistent", "extents     0", "52 free, 0 clean, 0 dirty, 4 journal");
        CliRun json = run("check", "--cache", cache().toString(), "--json");
        assertThat(json.exitCode()).isZero();
        assertThat(json.out().trim()).startsWith("{\"ok\":true").endsWith("}");
        assertThat(jsonLong(json.out(), "extents")).isZero();
        assertThat(jsonLong(json.out(), "bucketsFree")).isEqualTo(52);
    }

    @Test
    void formatRefusesBlockcacheMetadataWithoutForceAndOverwritesWithIt() {
        // Proves the guard: an existing cache (or backing) is refused with what was found; --force formats it.
        assertThat(formatFresh().exitCode()).isZero();
        CliRun again = formatFresh();
        assertThat(again.exitCode()).isEqualTo(1);
        assertThat(again.err()).contains("refusing to format " + cache(), "blockcache cache superblock", "--force");

        CliRun otherCache = run("format", "--cache", dir.resolve("other.img").toString(), "--cache-size", "8M",
                "--backing", backing().toString(), "--bucket-size", "128K");
        assertThat(otherCache.exitCode()).isEqualTo(1);
        assertThat(otherCache.err()).contains("blockcache backing header");

        CliRun forced = formatFresh("--force");
        assertThat(forced.exitCode()).as(forced.err()).isZero();
        assertThat(run("check", "--cache", cache().toString()).exitCode()).isZero();
    }

    @Test
    void formatForceKeepsTheVolumesDataWhereItIsOrRefusesNamingTheLogToGive() throws IOException {
        // Proves the layout guard: a backing formatted with a 2 MiB log holds its volume 3 MiB in; formatting it again
        // with no log or another size would move every block of it, so both are refused before anything is written
        // (the cache file and the backing's bytes stay as they were), naming the --backing-log that keeps it; the
        // same size formats. A backing formatted without a log refuses one being added the same way.
        assertThat(formatFresh("--backing-log", "2M").exitCode()).isZero();
        byte[] cacheBefore = Files.readAllBytes(cache());
        byte[] backingBefore = Files.readAllBytes(backing());
        for (String[] other : new String[][] {{}, {"--backing-log", "4M"}}) {
            String[] args = Arrays.copyOf(other, other.length + 1);
            args[other.length] = "--force";
            CliRun moved = formatFresh(args);
            assertThat(moved.exitCode()).as(moved.err()).isEqualTo(1);
            assertThat(moved.err()).contains("holds a volume whose data starts 3 MiB in (a 2 MiB backing log)",
                    "would move it", "--backing-log 2M");
            assertThat(Files.readAllBytes(cache())).isEqualTo(cacheBefore);
            assertThat(Files.readAllBytes(backing())).isEqualTo(backingBefore);
        }
        CliRun same = formatFresh("--backing-log", "2M", "--force");
        assertThat(same.exitCode()).as(same.err()).isZero();

        Files.delete(backing());
        Files.delete(cache());
        assertThat(formatFresh().exitCode()).isZero();
        CliRun added = formatFresh("--backing-log", "2M", "--force");
        assertThat(added.exitCode()).isEqualTo(1);
        assertThat(added.err()).contains("data starts 1 MiB in (no backing log)", "no --backing-log");
    }

    @Test
    void checkJsonReportsExtentsDirtyBytesAndJournalRangeAfterWrites() throws IOException {
        // Proves check's JSON after real writes: dirty bytes, extents, bucket classes and journal sequences.
        assertThat(formatFresh().exitCode()).isZero();
        writeThroughCacheSet();
        CliRun check = run("check", "--cache", cache().toString(), "--json", "--data");
        assertThat(check.exitCode()).as(check.out()).isZero();
        String json = check.out();
        assertThat(json).contains("\"ok\":true", "\"name\":\"default\"", "\"mismatches\":[]");
        assertThat(jsonLong(json, "dirtyBytes")).isEqualTo(64 << 10); // the overwrites fall inside the 64 KiB
        assertThat(jsonLong(json, "extents")).isEqualTo(7); // 64 KiB cut into 4 pieces around 3 overwrites
        assertThat(jsonLong(json, "bucketsDirty")).isEqualTo(1);
        assertThat(jsonLong(json, "bucketsClean")).isZero();
        assertThat(jsonLong(json, "bucketsFree")).isEqualTo(51);
        assertThat(jsonLong(json, "journalSeqFirst")).isEqualTo(1);
        List<JournalScanner.ScannedEntry> walked = walkJournal();
        assertThat(walked.size()).isGreaterThanOrEqualTo(3); // each FUA write commits the journal
        assertThat(jsonLong(json, "journalSeqLast")).isEqualTo(walked.get(walked.size() - 1).entry().sequence());
        assertThat(jsonLong(json, "spansChecked")).isEqualTo(7);
    }

    @Test
    void checkAfterCleanShutdownReportsTheCheckpointItsBucketsAndTheFlag() {
        // Proves the checkpoint path: its buckets count as metadata, its extents load, the clean flag shows.
        assertThat(formatFresh().exitCode()).isZero();
        writeThroughCacheSet(true);
        CliRun check = run("check", "--cache", cache().toString(), "--json", "--data");
        assertThat(check.exitCode()).as(check.out()).isZero();
        String json = check.out();
        assertThat(json).contains("\"cleanShutdown\":true");
        assertThat(jsonLong(json, "checkpointStart")).isPositive();
        assertThat(jsonLong(json, "bucketsMetadata")).isPositive();
        assertThat(jsonLong(json, "dirtyBytes")).isEqualTo(64 << 10);
        assertThat(jsonLong(json, "extents")).isEqualTo(7);
        assertThat(jsonLong(json, "spansChecked")).isEqualTo(7);
    }

    @Test
    void checkFailsAndNamesSequenceAndOffsetOfACorruptJournalEntryInTheMiddle() throws IOException {
        // Proves journal corruption with a valid successor is a failure naming the entry's sequence and offset.
        assertThat(formatFresh().exitCode()).isZero();
        writeThroughCacheSet();
        List<JournalScanner.ScannedEntry> walked = walkJournal();
        assertThat(walked.size()).isGreaterThanOrEqualTo(3);
        JournalScanner.ScannedEntry middle = walked.get(1);
        flipByte(RING_START_BYTES + middle.ringOffsetBytes() + 50); // inside the records, under the entry CRC

        CliRun check = run("check", "--cache", cache().toString());
        assertThat(check.exitCode()).isEqualTo(1);
        assertThat(check.out()).contains("NOT CONSISTENT", "corrupt journal entry sequence "
                + middle.entry().sequence() + " at ring byte " + middle.ringOffsetBytes());
        CliRun json = run("check", "--cache", cache().toString(), "--json");
        assertThat(json.exitCode()).isEqualTo(1);
        assertThat(json.out()).contains("\"ok\":false", "\"journalSeqFirst\":null", "corrupt journal entry");
    }

    private List<JournalScanner.ScannedEntry> walkJournal() throws IOException {
        byte[] ring = new byte[4 * BUCKET_BYTES];
        try (RandomAccessFile file = new RandomAccessFile(cache().toFile(), "r")) {
            file.seek(RING_START_BYTES);
            file.readFully(ring);
        }
        try {
            return JournalRecovery.recover(ring, BUCKET_BYTES).walked();
        } catch (JournalRecovery.CorruptJournalException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void checkFailsWhenBothSuperblocksAreDestroyed() throws IOException {
        // Proves a cache with no valid superblock copy is reported as such, with a failing exit status.
        assertThat(formatFresh().exitCode()).isZero();
        try (RandomAccessFile file = new RandomAccessFile(cache().toFile(), "rw")) {
            file.write(new byte[8192]);
        }
        CliRun check = run("check", "--cache", cache().toString());
        assertThat(check.exitCode()).isEqualTo(1);
        assertThat(check.out()).contains("NOT CONSISTENT", "no valid superblock", "copy A", "copy B");
    }

    @Test
    void checkPassesButReportsCopyAWhenOnlyCopyAIsCorrupted() throws IOException {
        // Proves the superblock pair at work: copy B carries the cache, copy A's damage is reported, exit 0.
        assertThat(formatFresh().exitCode()).isZero();
        flipByte(100);
        CliRun check = run("check", "--cache", cache().toString());
        assertThat(check.exitCode()).as(check.out()).isZero();
        assertThat(check.out()).contains("consistent", "using copy B", "copy A at byte 0 is invalid");
        CliRun json = run("check", "--cache", cache().toString(), "--json");
        assertThat(json.out()).contains("\"copy\":\"B\"", "\"otherCopy\":\"INVALID\"");
    }

    @Test
    void checkDataFindsCorruptedCachedDataAndNamesBucketVolumeAndSectors() throws IOException {
        // Proves --data: a flipped byte in cached data is found by CRC32C and located; without --data it is not read.
        assertThat(formatFresh().exitCode()).isZero();
        writeThroughCacheSet();
        long dataOffset = find(Files.readAllBytes(cache()), pattern(1, 64 << 10), 1024);
        assertThat(dataOffset).as("written data found in the cache file").isGreaterThan(RING_START_BYTES);
        flipByte(dataOffset + 10);

        assertThat(run("check", "--cache", cache().toString()).exitCode()).isZero();
        CliRun check = run("check", "--cache", cache().toString(), "--data");
        assertThat(check.exitCode()).isEqualTo(1);
        long bucket = (dataOffset - RING_START_BYTES) / BUCKET_BYTES;
        assertThat(check.out()).contains("CRC32C mismatch in bucket " + bucket, "volume \"default\" sectors [0, 16)");
    }

    /** Offset of the first {@code prefixBytes} of {@code needle} in {@code haystack}, or -1. */
    private static long find(byte[] haystack, byte[] needle, int prefixBytes) {
        outer:
        for (int i = 0; i + prefixBytes <= haystack.length; i += BlockDevice.SECTOR_BYTES) {
            for (int j = 0; j < prefixBytes; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
