package io.blockcache.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.nio.file.ExtendedOpenOption;
import io.blockcache.loop.Prng;
import io.blockcache.loop.RealLoop;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** O_DIRECT: needs a disk file system, so it works under /var/tmp (not /tmp, which may be tmpfs). */
class FileDeviceDirectTest {
    private static final Path DISK_TEMP = Path.of("/var/tmp");

    private final RealLoop loop = new RealLoop("file-device-direct-test");
    private final CallbackProbe probe = new CallbackProbe(loop);
    private Path dir;
    private FileDevice device;

    @AfterEach
    void closeAndClean() throws Exception {
        if (device != null) {
            probe.onLoopAndWait(device::close);
        }
        loop.close();
        if (dir != null) {
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path path : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(path);
                }
            }
        }
        assertThat(loop.failure()).isNull();
        assertThat(probe.reentered.get()).isZero();
        assertThat(probe.duplicates.get()).isZero();
    }

    @Test
    void unalignedHeapAndDirectBuffersRoundTripThroughTheBounceBuffer() throws Exception {
        // Proves O_DIRECT I/O with buffers the kernel would refuse succeeds via bounce buffers, across chunk edges.
        dir = Files.createTempDirectory(DISK_TEMP, "blockcache-direct-");
        Path file = dir.resolve("direct");
        FileDeviceOptions options = FileDeviceOptions.DEFAULTS.withDirect(true).withQueueDepth(2);
        try {
            device = FileDevice.create(loop, file, 8L << 20, options);
        } catch (UnsupportedOperationException e) {
            Assumptions.abort("the file system under " + DISK_TEMP + " refuses O_DIRECT: " + e.getMessage());
        }
        proveTheJdkRefusesUnalignedDirectBuffers(file);

        int length = ChannelIo.BOUNCE_BYTES + 3 * 4096; // more than one bounce chunk
        byte[] data = new byte[length];
        new Prng(9).nextBytes(data);
        byte[] padded = new byte[length + 7];
        System.arraycopy(data, 0, padded, 7, length);
        ByteBuffer heapAtOddOffset = ByteBuffer.wrap(padded, 7, length).slice();
        ByteBuffer directAtOddAddress = ByteBuffer.allocateDirect(length + 1).position(1).slice().put(data).flip();
        ByteBuffer directAligned = ByteBuffer.allocateDirect(length + 4096).alignedSlice(4096).limit(length);
        directAligned.put(data).flip();

        long[] offsets = {4096, 2L << 20, 5L << 20};
        ByteBuffer[] sources = {heapAtOddOffset, directAtOddAddress, directAligned};
        for (int i = 0; i < offsets.length; i++) {
            long offset = offsets[i];
            ByteBuffer src = sources[i];
            boolean fua = i == 0;
            assertThat(probe.await(probe.submit(cb -> device.write(offset, src, fua, cb)))).isEqualTo(IoResult.OK);
        }
        assertThat(probe.await(probe.submit(device::flush))).isEqualTo(IoResult.OK);
        for (long offset : offsets) {
            byte[] back = new byte[length + 5];
            ByteBuffer dst = ByteBuffer.wrap(back, 5, length).slice();
            assertThat(probe.await(probe.submit(cb -> device.read(offset, dst, cb)))).isEqualTo(IoResult.OK);
            assertThat(Arrays.mismatch(Arrays.copyOfRange(back, 5, back.length), data))
                    .as("first wrong byte at offset %d", offset).isEqualTo(-1);
        }
        assertThat(device.counters().completedSectors(DeviceOp.WRITE)).isEqualTo(3L * length / 512);
    }

    /** Shows the bounce buffer is needed: the JDK itself refuses an unaligned direct buffer under O_DIRECT. */
    private static void proveTheJdkRefusesUnalignedDirectBuffers(Path file) throws IOException {
        try (FileChannel raw = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE,
                ExtendedOpenOption.DIRECT)) {
            ByteBuffer unaligned = ByteBuffer.allocateDirect(8192 + 1).position(1).slice().limit(4096);
            assertThatThrownBy(() -> raw.write(unaligned, 0)).isInstanceOf(IOException.class);
        }
    }
}
