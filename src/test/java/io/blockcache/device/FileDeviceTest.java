package io.blockcache.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blockcache.loop.Prng;
import io.blockcache.loop.RealLoop;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileDeviceTest {
    private static final long MIB = 1L << 20;

    @TempDir
    Path dir;

    private final RealLoop loop = new RealLoop("file-device-test");
    private final CallbackProbe probe = new CallbackProbe(loop);
    private final List<FileDevice> devices = new ArrayList<>();

    @AfterEach
    void closeDevicesAndLoop() throws Exception {
        for (FileDevice device : devices) {
            probe.onLoopAndWait(device::close);
            assertThat(device.threadsStopped()).isTrue();
            assertThat(device.completionsDropped()).isZero();
        }
        loop.close();
        assertThat(loop.failure()).as("the loop saw no exception").isNull();
        assertThat(probe.reentered.get()).as("callbacks run inside submit").isZero();
        assertThat(probe.duplicates.get()).as("callbacks run twice").isZero();
        assertThat(probe.offLoop.get()).as("callbacks run off the loop").isZero();
    }

    private FileDevice track(FileDevice device) {
        devices.add(device);
        return device;
    }

    @Test
    void concurrentRandomWritesFlushedReadBackIntactHereAndAfterReopen() throws Exception {
        // Proves the data path for both block sizes, heap and direct buffers, FUA and plain writes, and exact counters.
        for (int blockBytes : new int[] {512, 4096}) {
            Path file = dir.resolve("data-" + blockBytes);
            FileDeviceOptions options = FileDeviceOptions.DEFAULTS.withQueueDepth(4).withLogicalBlockBytes(blockBytes);
            FileDevice device = track(FileDevice.create(loop, file, 64 * MIB, options));
            Prng prng = new Prng(blockBytes);
            long[] offsets = new long[24];
            byte[][] contents = new byte[offsets.length][];
            List<CompletableFuture<IoResult>> writes = new ArrayList<>();
            long sectors = 0;
            for (int i = 0; i < offsets.length; i++) {
                offsets[i] = i * 2 * MIB + prng.nextInt(256) * (long) blockBytes;
                // Offsets reach 1 MiB into a 2 MiB slot and lengths stay at most 1 MiB, so extents never overlap.
                contents[i] = new byte[(1 + prng.nextInt((int) (MIB / blockBytes))) * blockBytes];
                prng.nextBytes(contents[i]);
                sectors += contents[i].length / 512;
                ByteBuffer src = i % 2 == 0 ? ByteBuffer.wrap(contents[i]) : directCopy(contents[i]);
                long offset = offsets[i];
                boolean fua = i % 3 == 0;
                writes.add(probe.submit(cb -> device.write(offset, src, fua, cb)));
            }
            for (CompletableFuture<IoResult> write : writes) {
                assertThat(probe.await(write)).isEqualTo(IoResult.OK);
            }
            assertThat(probe.await(probe.submit(device::flush))).isEqualTo(IoResult.OK);
            assertReadsBack(device, offsets, contents);
            ByteBuffer unwritten = ByteBuffer.allocate(blockBytes * 8);
            assertThat(probe.await(probe.submit(cb -> device.read(63 * MIB, unwritten, cb)))).isEqualTo(IoResult.OK);
            assertThat(unwritten.array()).containsOnly(0);

            DeviceCounters counters = device.counters();
            assertThat(counters.submittedSectors(DeviceOp.WRITE)).isEqualTo(sectors);
            assertThat(counters.completedSectors(DeviceOp.WRITE)).isEqualTo(sectors);
            assertThat(counters.completedSectors(DeviceOp.READ)).isEqualTo(sectors + blockBytes * 8 / 512);
            assertThat(counters.completed(DeviceOp.FLUSH)).isEqualTo(1);
            assertThat(counters.inFlight()).isZero();
            assertThat(device.executingMax()).isBetween(1, 4);

            probe.onLoopAndWait(device::close);
            FileDevice reopened = track(FileDevice.open(loop, file, options));
            assertThat(reopened.sizeBytes()).isEqualTo(64 * MIB);
            assertReadsBack(reopened, offsets, contents);
        }
    }

    @Test
    void badRangesAlignmentAndClosedDeviceComeBackAsValues() throws Exception {
        // Proves malformed requests and requests after close complete with error values naming the path.
        Path file = dir.resolve("errors");
        FileDevice device = track(FileDevice.create(loop, file, 8 * MIB, FileDeviceOptions.DEFAULTS));
        ByteBuffer block = ByteBuffer.allocate(4096);
        assertThat(status(file, cb -> device.read(-4096, block.clear(), cb))).isEqualTo(IoStatus.OUT_OF_RANGE);
        assertThat(status(file, cb -> device.read(Long.MAX_VALUE - 4095, block.clear(), cb)))
                .isEqualTo(IoStatus.OUT_OF_RANGE);
        assertThat(status(file, cb -> device.write(8 * MIB, block.clear(), false, cb)))
                .isEqualTo(IoStatus.OUT_OF_RANGE);
        assertThat(status(file, cb -> device.discard(4096, Long.MAX_VALUE - 4095, cb)))
                .isEqualTo(IoStatus.OUT_OF_RANGE);
        assertThat(status(file, cb -> device.read(512, block.clear(), cb))).isEqualTo(IoStatus.MISALIGNED);
        assertThat(status(file, cb -> device.write(0, ByteBuffer.allocate(100), false, cb)))
                .isEqualTo(IoStatus.MISALIGNED);
        assertThat(status(file, cb -> device.discard(0, 4096, cb))).isEqualTo(IoStatus.OK);
        assertThat(device.counters().submittedSectors(DeviceOp.WRITE)).as("rejected bytes are not counted").isZero();
        assertThat(device.counters().errors(DeviceOp.READ)).isEqualTo(3);
        probe.onLoopAndWait(device::close);
        assertThat(status(file, cb -> device.read(0, block.clear(), cb))).isEqualTo(IoStatus.CLOSED);
        assertThat(status(file, cb -> device.write(0, block.clear(), true, cb))).isEqualTo(IoStatus.CLOSED);
        assertThat(status(file, device::flush)).isEqualTo(IoStatus.CLOSED);
        assertThat(status(file, cb -> device.discard(0, 4096, cb))).isEqualTo(IoStatus.CLOSED);
    }

    @Test
    void createRefusesAnExistingFileAndMakesASparseOneThatReadsAsZero() throws Exception {
        // Proves create never clobbers a file, sizes the new one exactly, and unwritten space reads as zeroes.
        Path file = dir.resolve("sparse");
        FileDevice device = track(FileDevice.create(loop, file, 8L << 30, FileDeviceOptions.DEFAULTS));
        assertThat(Files.size(file)).isEqualTo(8L << 30);
        ByteBuffer dst = ByteBuffer.allocate(64 * 1024);
        assertThat(probe.await(probe.submit(cb -> device.read((7L << 30) + 4096, dst, cb)))).isEqualTo(IoResult.OK);
        assertThat(dst.array()).containsOnly(0);
        assertThatThrownBy(() -> FileDevice.create(loop, file, 8 * MIB, FileDeviceOptions.DEFAULTS))
                .isInstanceOf(FileAlreadyExistsException.class);
        Files.write(dir.resolve("odd"), new byte[1000]);
        assertThatThrownBy(() -> FileDevice.open(loop, dir.resolve("odd"), FileDeviceOptions.DEFAULTS))
                .isInstanceOf(IOException.class).hasMessageContaining("not a positive multiple");
    }

    @Test
    void aCreateKilledBeforeItsFileIsSizedLeavesNoFileOfTheNameAndTheNextCreateSucceeds() throws Exception {
        // Proves the file appears whole or not at all: what a create killed after creating and before sizing leaves
        // (its temporary sibling, 0 bytes) neither takes the name nor stops the next create, which sizes the file
        // and leaves no temporary behind. Before, the name itself was the 0-byte file, and the next open refused it.
        Path file = dir.resolve("v2.img");
        Path leftover = Files.createFile(dir.resolve(".v2.img.creating"));
        assertThat(Files.exists(file)).isFalse();
        FileDevice device = track(FileDevice.create(loop, file, 8 * MIB, FileDeviceOptions.DEFAULTS));
        assertThat(device.sizeBytes()).isEqualTo(8 * MIB);
        assertThat(Files.size(file)).isEqualTo(8 * MIB);
        assertThat(Files.exists(leftover)).as("the temporary sibling").isFalse();
        try (var names = Files.list(dir)) {
            assertThat(names.map(p -> p.getFileName().toString())).containsExactly("v2.img");
        }
    }

    @Test
    void aReadOnlyDeviceReadsAFileItMayNotWriteAndRefusesEveryChange() throws Exception {
        // Proves the read-only option (what check uses): it opens a file without write permission, reads it, and
        // fails writes, flushes and discards with an error naming the path, leaving the file unchanged.
        Path file = dir.resolve("read-only");
        byte[] content = new byte[(int) MIB];
        content[4096] = 42;
        Files.write(file, content);
        assertThat(file.toFile().setWritable(false, false)).isTrue();
        FileDevice device = track(FileDevice.open(loop, file, FileDeviceOptions.DEFAULTS.withReadOnly(true)));
        ByteBuffer dst = ByteBuffer.allocate(4096);
        assertThat(probe.await(probe.submit(cb -> device.read(4096, dst, cb)))).isEqualTo(IoResult.OK);
        assertThat(dst.get(0)).isEqualTo((byte) 42);
        IoResult write = probe.await(probe.submit(cb -> device.write(0, ByteBuffer.allocate(4096), false, cb)));
        assertThat(write.ok()).isFalse();
        assertThat(write.message()).contains("is open read-only").contains(file.toString());
        assertThat(probe.await(probe.submit(device::flush)).ok()).isFalse();
        assertThat(probe.await(probe.submit(cb -> device.discard(0, 4096, cb))).ok()).isFalse();
        assertThat(Files.readAllBytes(file)).isEqualTo(content);
    }

    @Test
    void channelErrorsBecomeIoErrorAndNoSpaceWithOpOffsetLengthAndPath() throws Exception {
        // Proves IOExceptions from the channel come back as values: ENOSPC as NO_SPACE, others as IO_ERROR.
        Path file = dir.resolve("failing");
        Files.write(file, new byte[(int) MIB]);
        FileChannel real = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
        FileChannel failing = new DelegatingFileChannel(real) {
            @Override
            public int write(ByteBuffer src, long position) throws IOException {
                throw new IOException(position == 0 ? "No space left on device" : "Input/output error");
            }
        };
        FileDevice device = track(new FileDevice(loop, failing, file.toString(), MIB, FileDeviceOptions.DEFAULTS,
                4096));
        IoResult full = probe.await(probe.submit(cb -> device.write(0, ByteBuffer.allocate(4096), false, cb)));
        IoResult broken = probe.await(probe.submit(cb -> device.write(8192, ByteBuffer.allocate(8192), true, cb)));
        assertThat(full.status()).isEqualTo(IoStatus.NO_SPACE);
        assertThat(full.message()).contains("write offset=0 length=4096 on " + file, "No space left");
        assertThat(broken.status()).isEqualTo(IoStatus.IO_ERROR);
        assertThat(broken.message()).contains("write offset=8192 length=8192 on " + file, "Input/output error");
        assertThat(device.counters().errors(DeviceOp.WRITE)).isEqualTo(2);
        assertThat(device.counters().completedSectors(DeviceOp.WRITE)).isZero();
    }

    @Test
    void readPastTheEndOfAShorterFileYieldsZeroesAfterTheData() throws Exception {
        // Proves the EOF branch of the read loop: the device is larger than the file, the tail reads as zeroes.
        Path file = dir.resolve("short");
        byte[] data = new byte[64 * 1024];
        new Prng(5).nextBytes(data);
        Files.write(file, data);
        FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
        FileDevice device = track(new FileDevice(loop, channel, file.toString(), MIB, FileDeviceOptions.DEFAULTS,
                4096));
        ByteBuffer dst = ByteBuffer.allocate(64 * 1024);
        java.util.Arrays.fill(dst.array(), (byte) 0x5a);
        assertThat(probe.await(probe.submit(cb -> device.read(32 * 1024, dst, cb)))).isEqualTo(IoResult.OK);
        byte[] expected = new byte[64 * 1024];
        System.arraycopy(data, 32 * 1024, expected, 0, 32 * 1024);
        assertThat(Arrays.mismatch(dst.array(), expected)).isEqualTo(-1);
    }

    @Test
    void smallTransfersOnAFastFileRunOnTheLoopThreadAndStillCompleteLater() throws Exception {
        // Proves the inline path: once the file shows itself fast, 4 KiB reads and writes are channel calls on the
        // loop thread, their data is intact, and callbacks still never run inside submit (checked in closeDevices...).
        Path file = dir.resolve("inline");
        Files.write(file, new byte[(int) MIB]);
        FileChannel real = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
        List<String> writeThreads = java.util.Collections.synchronizedList(new ArrayList<>());
        FileChannel recording = new DelegatingFileChannel(real) {
            @Override
            public int write(ByteBuffer src, long position) throws IOException {
                writeThreads.add(Thread.currentThread().getName());
                return delegate.write(src, position);
            }
        };
        FileDevice device = track(new FileDevice(loop, recording, file.toString(), MIB, FileDeviceOptions.DEFAULTS,
                4096));
        Prng prng = new Prng(11);
        int blocks = (int) (MIB / 4096);
        byte[][] contents = new byte[blocks][4096];
        // One request at a time, up to 20 passes over the file: a loaded machine may keep the mean above the
        // limit for a while, but not for thousands of page-cache calls.
        for (int pass = 0; pass < 20 && device.inlineCalls() < blocks; pass++) {
            for (int block = 0; block < blocks; block++) {
                prng.nextBytes(contents[block]);
                ByteBuffer src = directCopy(contents[block]);
                long offset = block * 4096L;
                IoResult written = probe.await(probe.submit(cb -> device.write(offset, src, false, cb)));
                assertThat(written).isEqualTo(IoResult.OK);
            }
        }
        assertThat(device.inlineCalls()).as("transfers on the loop thread").isGreaterThan(0);
        assertThat(writeThreads).as("some writes ran on the loop thread").contains(loop.thread().getName());
        long[] offsets = new long[blocks];
        Arrays.setAll(offsets, block -> block * 4096L);
        assertReadsBack(device, offsets, contents);
        assertThat(Files.readAllBytes(file)).as("the file itself")
                .isEqualTo(java.util.stream.Stream.of(contents).reduce(new byte[0], FileDeviceTest::concat));
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] joined = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, joined, a.length, b.length);
        return joined;
    }

    private void assertReadsBack(FileDevice device, long[] offsets, byte[][] contents) throws Exception {
        List<CompletableFuture<IoResult>> reads = new ArrayList<>();
        List<ByteBuffer> buffers = new ArrayList<>();
        for (int i = 0; i < offsets.length; i++) {
            ByteBuffer dst = i % 2 == 0 ? ByteBuffer.allocateDirect(contents[i].length)
                    : ByteBuffer.allocate(contents[i].length);
            buffers.add(dst);
            long offset = offsets[i];
            reads.add(probe.submit(cb -> device.read(offset, dst, cb)));
        }
        for (int i = 0; i < offsets.length; i++) {
            assertThat(probe.await(reads.get(i))).isEqualTo(IoResult.OK);
            assertThat(Arrays.mismatch(bytes(buffers.get(i)), contents[i]))
                    .as("first wrong byte of extent %d at %d", i, offsets[i]).isEqualTo(-1);
        }
    }

    private IoStatus status(Path file, Consumer<IoCallback> request) throws Exception {
        IoResult outcome = probe.await(probe.submit(request));
        if (!outcome.ok()) {
            assertThat(outcome.message()).as("an error names the path").contains(file.toString());
        }
        return outcome.status();
    }

    static ByteBuffer directCopy(byte[] data) {
        return ByteBuffer.allocateDirect(data.length).put(data).flip();
    }

    static byte[] bytes(ByteBuffer buffer) {
        byte[] out = new byte[buffer.capacity()];
        buffer.get(0, out);
        return out;
    }
}
