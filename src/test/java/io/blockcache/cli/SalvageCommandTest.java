package io.blockcache.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.device.FileDevice;
import io.blockcache.device.FileDeviceOptions;
import io.blockcache.device.IoResult;
import io.blockcache.engine.BackingSpec;
import io.blockcache.engine.CacheSet;
import io.blockcache.engine.CacheSetOptions;
import io.blockcache.engine.Outcome;
import io.blockcache.format.DecodeResult;
import io.blockcache.format.JournalEntry;
import io.blockcache.format.JournalRecord;
import io.blockcache.loop.LoopCalls;
import io.blockcache.loop.Prng;
import io.blockcache.loop.RealLoop;
import io.blockcache.volume.Volume;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code blockcache salvage} on real cache files with dirty data acknowledged by FLUSH, each metadata structure
 * damaged in turn; the recovered image is compared with what was written.
 */
class SalvageCommandTest {
    private static final int BUCKET_BYTES = 128 << 10;
    /** The journal ring: buckets 0..3 from the 1 MiB data start (format's default for an 8 MiB cache). */
    private static final long RING_START_BYTES = 1 << 20;
    private static final int RING_BYTES = 4 * BUCKET_BYTES;
    private static final long VOLUME_BYTES = 16 << 20;
    private static final long BACKING_DATA_OFFSET_BYTES = 1 << 20;
    private static final Duration WAIT = Duration.ofSeconds(60);
    /** Volume byte offsets of the three 64 KiB writes, each followed by a FLUSH. */
    private static final long[] WRITES = {0, 1 << 20, 2 << 20};
    private static final int WRITE_BYTES = 64 << 10;

    @TempDir
    Path dir;

    /** What the volume holds after the writes: the reference the recovered image is compared with. */
    private final byte[] reference = new byte[(int) VOLUME_BYTES];

    private Path cache() {
        return dir.resolve("cache.img");
    }

    private Path backing() {
        return dir.resolve("backing.img");
    }

    private Path out() {
        return dir.resolve("out");
    }

    @BeforeEach
    void writeDirtyDataAndCrash() {
        CliRun format = CliRun.of("format", "--cache", cache().toString(), "--cache-size", "8M", "--backing",
                backing().toString(), "--backing-size", "16M", "--bucket-size", "128K");
        assertThat(format.exitCode()).as(format.err()).isZero();
        try (RealLoop loop = new RealLoop("test-writer")) {
            FileDevice cacheDevice = FileDevice.open(loop, cache(), FileDeviceOptions.DEFAULTS);
            FileDevice backingDevice = FileDevice.open(loop, backing(), FileDeviceOptions.DEFAULTS);
            try {
                CacheSetOptions options = CacheSetOptions.defaults().withBucketSizeBytes(BUCKET_BYTES);
                Outcome<CacheSet> opened = LoopCalls.await(loop, done -> CacheSet.open(loop, cacheDevice,
                        List.of(new BackingSpec("default", backingDevice)), options, done), WAIT);
                CacheSet set = opened.orThrow();
                Volume volume = set.volumes().get(0);
                LoopCalls.<Void>await(loop, done -> {
                    KeepDirty.on(set, "default");
                    done.accept(null);
                }, WAIT);
                for (int i = 0; i < WRITES.length; i++) {
                    byte[] data = pattern(i + 1, WRITE_BYTES);
                    long at = WRITES[i];
                    System.arraycopy(data, 0, reference, (int) at, data.length);
                    assertThat(LoopCalls.<IoResult>await(loop, done -> volume.write(at, ByteBuffer.wrap(data),
                            false, done::accept), WAIT)).isEqualTo(IoResult.OK);
                    assertThat(LoopCalls.<IoResult>await(loop, done -> volume.flush(done::accept), WAIT))
                            .isEqualTo(IoResult.OK);
                    if (i == 0) {
                        // A checkpoint holding the first write: the structure the finding damaged.
                        assertThat(LoopCalls.<IoResult>await(loop, done -> set.checkpoint(done::accept), WAIT))
                                .isEqualTo(IoResult.OK);
                    }
                }
            } finally {
                // No shutdown: the devices close as a crash leaves them, with the data dirty.
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

    /** Byte offsets in the cache file of every 4 KiB block starting with {@code magic}. */
    private List<Long> blocksWithMagic(String magic) throws IOException {
        byte[] bytes = Files.readAllBytes(cache());
        byte[] wanted = magic.getBytes(StandardCharsets.US_ASCII);
        List<Long> found = new ArrayList<>();
        for (int offset = 0; offset + 4096 <= bytes.length; offset += 4096) {
            if (Arrays.equals(bytes, offset, offset + wanted.length, wanted, 0, wanted.length)) {
                found.add((long) offset);
            }
        }
        return found;
    }

    /** The cache-file offset of the journal entry that inserts the extent starting at volume byte {@code at}. */
    private long entryInserting(long at) throws IOException {
        byte[] ring = Arrays.copyOfRange(Files.readAllBytes(cache()), (int) RING_START_BYTES,
                (int) RING_START_BYTES + RING_BYTES);
        for (int offset = 0; offset < ring.length; offset += 4096) {
            DecodeResult<JournalEntry> entry = JournalEntry.decode(ring, offset,
                    BUCKET_BYTES - offset % BUCKET_BYTES);
            if (entry.isOk()) {
                for (JournalRecord record : entry.value().records()) {
                    if (record instanceof JournalRecord.ExtentInsert insert && insert.startSector() == at / 512) {
                        return RING_START_BYTES + offset;
                    }
                }
            }
        }
        throw new AssertionError("no journal entry inserts volume byte " + at);
    }

    /** The cache-file offset of the dirty data written at volume byte {@code at} (its first 64 bytes). */
    private long dataOf(long at) throws IOException {
        byte[] bytes = Files.readAllBytes(cache());
        byte[] wanted = Arrays.copyOfRange(reference, (int) at, (int) at + 64);
        for (int offset = (int) RING_START_BYTES + RING_BYTES; offset + 64 <= bytes.length; offset += 512) {
            if (Arrays.equals(bytes, offset, offset + 64, wanted, 0, 64)) {
                return offset;
            }
        }
        throw new AssertionError("data of volume byte " + at + " not found in the cache file");
    }

    private CliRun salvageToDir() {
        return CliRun.of("salvage", "--cache", cache().toString(), "--out", out().toString());
    }

    private byte[] image() throws IOException {
        return Files.readAllBytes(out().resolve("default.img"));
    }

    @Test
    void recoversEveryDirtyExtentWhenTheCheckpointIsDamaged() throws IOException {
        // Proves a damaged checkpoint no longer strands dirty data: check refuses, salvage recovers it all, exactly.
        List<Long> chunks = blocksWithMagic("BCCHECKP");
        assertThat(chunks).isNotEmpty();
        flipByte(chunks.get(0) + 64);
        CliRun check = CliRun.of("check", "--cache", cache().toString());
        assertThat(check.exitCode()).as(check.out()).isEqualTo(1);
        assertThat(check.out()).contains("BAD_CRC");

        CliRun salvage = salvageToDir();
        assertThat(salvage.exitCode()).as(salvage.out() + salvage.err()).isZero();
        assertThat(image()).hasSize((int) VOLUME_BYTES).isEqualTo(reference);
        assertThat(salvage.out()).contains("recovered 3 ranges", "unrecoverable 0 ranges",
                "is damaged: 0 chunks verify");
        assertThat(Files.readString(out().resolve(SalvageCommand.REPORT_JSON))).contains("\"complete\":true");
    }

    @Test
    void recoversEverythingWithOneSuperblockDamaged() throws IOException {
        // Proves salvage uses the other copy when one superblock copy is damaged.
        flipByte(2000);
        CliRun salvage = salvageToDir();
        assertThat(salvage.exitCode()).as(salvage.out() + salvage.err()).isZero();
        assertThat(image()).isEqualTo(reference);
    }

    @Test
    void recoversEverythingWithBothSuperblocksDamagedWhereTheirFieldsSurvive() throws IOException {
        // Proves salvage reads a superblock whose CRC fails when its fields are valid, and that open refuses it.
        flipByte(2000);
        flipByte(4096 + 2000);
        assertThat(CliRun.of("check", "--cache", cache().toString()).exitCode()).isEqualTo(1);
        CliRun salvage = salvageToDir();
        assertThat(salvage.exitCode()).as(salvage.out() + salvage.err()).isZero();
        assertThat(salvage.out()).contains("neither copy verifies");
        assertThat(image()).isEqualTo(reference);
    }

    @Test
    void recoversEverythingWithBothSuperblocksZeroed() throws IOException {
        // Proves salvage rebuilds the geometry from the journal when no superblock copy is left, and gets every dirty
        // extent out (before 2026-12-07 it stopped with "no usable superblock").
        zero(0, 8192);
        assertThat(CliRun.of("check", "--cache", cache().toString()).exitCode()).isEqualTo(1);
        CliRun salvage = salvageToDir();
        assertThat(salvage.exitCode()).as(salvage.out() + salvage.err()).isZero();
        assertThat(salvage.out()).contains("both copies are lost", "bucket size " + BUCKET_BYTES + " B",
                "recovered 3 ranges", "unrecoverable 0 ranges");
        // The volume table is gone: the image is named by volume id and ends at the last MiB a record names.
        byte[] image = Files.readAllBytes(out().resolve("volume-0.img"));
        long end = WRITES[WRITES.length - 1] + WRITE_BYTES;
        assertThat(image).hasSize((int) ((end + (1 << 20) - 1) >> 20 << 20))
                .isEqualTo(Arrays.copyOf(reference, image.length));
    }

    @Test
    void zeroedSuperblocksRefuseBackingsAndWriteNothing() throws IOException {
        // Proves salvage will not guess which backing file holds which volume once the volume table is lost.
        zero(0, 8192);
        byte[] before = Files.readAllBytes(backing());
        CliRun salvage = CliRun.of("salvage", "--cache", cache().toString(), "--backing", "default=" + backing());
        assertThat(salvage.exitCode()).isEqualTo(1);
        assertThat(salvage.err()).contains("both superblock copies are lost", "use --out DIR", "nothing was written");
        assertThat(Files.readAllBytes(backing())).isEqualTo(before);
    }

    @Test
    void noSuperblockAndNoJournalIsRefusedWithTheReason() throws IOException {
        // Proves salvage says why it cannot start when neither a superblock nor a journal is left, and writes nothing.
        zero(0, (int) RING_START_BYTES + RING_BYTES);
        CliRun salvage = salvageToDir();
        assertThat(salvage.exitCode()).isEqualTo(1);
        assertThat(salvage.err()).contains("no usable superblock", "the geometry cannot be rebuilt",
                "no journal entry verifies");
        assertThat(Files.exists(out())).isFalse();
    }

    private void zero(long offsetBytes, int bytes) throws IOException {
        try (RandomAccessFile file = new RandomAccessFile(cache().toFile(), "rw")) {
            file.seek(offsetBytes);
            file.write(new byte[bytes]);
        }
    }

    @Test
    void aDamagedJournalEntryLeavesEverythingNotRewrittenAfterItListed() throws IOException {
        // Proves a lost journal entry makes salvage list every range it may have written, and recover the later one.
        flipByte(entryInserting(WRITES[1]) + 200);
        CliRun check = CliRun.of("check", "--cache", cache().toString());
        assertThat(check.exitCode()).isEqualTo(1);

        CliRun salvage = CliRun.of("salvage", "--cache", cache().toString(), "--out", out().toString(), "--json");
        assertThat(salvage.exitCode()).as(salvage.out() + salvage.err()).isEqualTo(1);
        long third = WRITES[2] / 512;
        long sectors = WRITE_BYTES / 512;
        assertThat(salvage.out()).contains("\"recovered\":[{\"startSector\":" + third + ",\"lengthSectors\":"
                + sectors + "}]");
        // Everything else of the volume is listed, since the lost entry could have written anywhere.
        assertThat(salvage.out()).contains("{\"startSector\":0,\"lengthSectors\":" + third + ",\"reason\":"
                + "\"newest version unknown: journal entry ", "{\"startSector\":" + (third + sectors)
                + ",\"lengthSectors\":" + (VOLUME_BYTES / 512 - third - sectors) + ",");
        byte[] image = image();
        assertThat(Arrays.copyOfRange(image, (int) WRITES[2], (int) WRITES[2] + WRITE_BYTES))
                .isEqualTo(Arrays.copyOfRange(reference, (int) WRITES[2], (int) WRITES[2] + WRITE_BYTES));
        // Nothing of an unknown range is written, not even the older version the checkpoint holds.
        assertThat(Arrays.copyOfRange(image, 0, WRITE_BYTES)).isEqualTo(new byte[WRITE_BYTES]);
    }

    @Test
    void dataThatFailsItsCrcIsListedAndTheRestRecovered() throws IOException {
        // Proves a dirty extent whose data fails its CRC32C is listed with its LBA range and not written.
        flipByte(blocksWithMagic("BCCHECKP").get(0) + 64);
        flipByte(dataOf(WRITES[1]) + 1000);
        CliRun salvage = salvageToDir();
        assertThat(salvage.exitCode()).as(salvage.out() + salvage.err()).isEqualTo(1);
        assertThat(salvage.out()).contains("UNRECOVERABLE sectors " + WRITES[1] / 512 + "+" + WRITE_BYTES / 512,
                "does not match its CRC32C");
        byte[] expected = reference.clone();
        Arrays.fill(expected, (int) WRITES[1], (int) WRITES[1] + WRITE_BYTES, (byte) 0);
        assertThat(image()).isEqualTo(expected);
    }

    @Test
    void backingReceivesTheRecoveredExtentsAfterItsHeader() throws IOException {
        // Proves --backing writes each recovered extent at the backing file's data offset plus its LBA.
        flipByte(blocksWithMagic("BCCHECKP").get(0) + 64);
        CliRun salvage = CliRun.of("salvage", "--cache", cache().toString(), "--backing",
                "default=" + backing());
        assertThat(salvage.exitCode()).as(salvage.out() + salvage.err()).isZero();
        byte[] file = Files.readAllBytes(backing());
        assertThat(Arrays.copyOfRange(file, (int) BACKING_DATA_OFFSET_BYTES, file.length)).isEqualTo(reference);
    }

    @Test
    void backingInUseIsRefusedAndNotWritten() throws Exception {
        // Proves --backing refuses while another process holds the backing file open, and writes nothing.
        flipByte(blocksWithMagic("BCCHECKP").get(0) + 64);
        byte[] before = Files.readAllBytes(backing());
        Process holder = new ProcessBuilder("sh", "-c", "exec 3<\"$0\"; read line", backing().toString()).start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (FileHolders.of(backing(), ProcessHandle.current().pid()).isEmpty()) {
                assertThat(System.nanoTime()).as("the holder process opened the file").isLessThan(deadline);
                Thread.onSpinWait();
            }
            CliRun salvage = CliRun.of("salvage", "--cache", cache().toString(), "--backing",
                    "default=" + backing());
            assertThat(salvage.exitCode()).isEqualTo(1);
            assertThat(salvage.err()).contains("is open in process " + List.of(holder.pid()), "nothing was written");
        } finally {
            holder.getOutputStream().close();
            assertThat(holder.waitFor(10, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(Files.readAllBytes(backing())).isEqualTo(before);
    }

    @Test
    void badArgumentsExitTwo() {
        // Proves usage errors exit 2: neither or both of --out and --backing, or a URI that is not a file.
        assertThat(CliRun.of("salvage", "--cache", cache().toString()).exitCode()).isEqualTo(2);
        assertThat(CliRun.of("salvage", "--cache", cache().toString(), "--out", out().toString(), "--backing",
                "default=" + backing()).exitCode()).isEqualTo(2);
        assertThat(CliRun.of("salvage", "--cache", cache().toString(), "--backing", "default=s3://b/p").exitCode())
                .isEqualTo(2);
    }
}
