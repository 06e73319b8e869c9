package io.blockcache.device;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.loop.Prng;
import io.blockcache.loop.SimLoop;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class MemoryDeviceTest {
    private static final long GIB = 1L << 30;

    private final SimLoop loop = new SimLoop();
    private final CallbackProbe probe = new CallbackProbe(loop);
    private MemoryDevice device;

    @AfterEach
    void closeDevice() {
        if (device != null) {
            device.close();
        }
        loop.runUntilIdle();
        assertThat(probe.reentered.get()).as("callbacks run inside submit").isZero();
        assertThat(probe.duplicates.get()).as("callbacks run twice").isZero();
    }

    @Test
    void randomWritesAtManyOffsetsAndSizesReadBackIntactAndCountersMatch() throws Exception {
        // Proves data round-trips across page boundaries for both block sizes and counters count every sector.
        for (int blockBytes : new int[] {512, 4096}) {
            device = new MemoryDevice(loop, 4 * GIB, blockBytes);
            Prng prng = new Prng(blockBytes);
            List<long[]> extents = new ArrayList<>();
            List<byte[]> contents = new ArrayList<>();
            long sectors = 0;
            for (int i = 0; i < 20; i++) {
                long offset = i * 64L * MemoryDevice.PAGE_BYTES * 3 + prng.nextInt(64) * (long) blockBytes;
                int length = (1 + prng.nextInt(40)) * blockBytes;
                byte[] data = new byte[length];
                prng.nextBytes(data);
                extents.add(new long[] {offset, length});
                contents.add(data);
                sectors += length / 512;
                // The probe fails the test in closeDevice() if this callback runs inside write().
                CompletableFuture<IoResult> written = probe.submit(cb -> device.write(offset, ByteBuffer.wrap(data),
                        false, cb));
                assertThat(probe.await(written)).isEqualTo(IoResult.OK);
            }
            assertThat(probe.await(probe.submit(device::flush))).isEqualTo(IoResult.OK);
            for (int i = 0; i < extents.size(); i++) {
                long offset = extents.get(i)[0];
                ByteBuffer dst = ByteBuffer.allocate((int) extents.get(i)[1]);
                assertThat(probe.await(probe.submit(cb -> device.read(offset, dst, cb)))).isEqualTo(IoResult.OK);
                assertThat(dst.array()).as("extent %d at %d", i, offset).isEqualTo(contents.get(i));
            }
            DeviceCounters counters = device.counters();
            assertThat(counters.submittedSectors(DeviceOp.WRITE)).isEqualTo(sectors);
            assertThat(counters.completedSectors(DeviceOp.WRITE)).isEqualTo(sectors);
            assertThat(counters.completedSectors(DeviceOp.READ)).isEqualTo(sectors);
            assertThat(counters.completed(DeviceOp.FLUSH)).isEqualTo(1);
            assertThat(counters.inFlight()).isZero();
            device.close();
        }
    }

    @Test
    void hugeDeviceCostsOnlyTheWrittenPagesAndUnwrittenBytesReadAsZero() throws Exception {
        // Proves sparseness: an 8 GiB device allocates one page for one write near its end.
        device = new MemoryDevice(loop, 8 * GIB, 4096);
        long offset = 8 * GIB - 8192;
        byte[] data = new byte[4096];
        new Prng(1).nextBytes(data);
        assertThat(probe.await(probe.submit(cb -> device.write(offset, ByteBuffer.wrap(data), true, cb))))
                .isEqualTo(IoResult.OK);
        assertThat(device.allocatedPages()).isEqualTo(1);
        ByteBuffer dst = ByteBuffer.allocate(3 * 4096);
        assertThat(probe.await(probe.submit(cb -> device.read(offset - 4096, dst, cb)))).isEqualTo(IoResult.OK);
        byte[] expected = new byte[3 * 4096];
        System.arraycopy(data, 0, expected, 4096, 4096);
        assertThat(dst.array()).isEqualTo(expected);
        assertThat(device.allocatedPages()).as("reads allocate nothing").isEqualTo(1);
    }

    @Test
    void discardZeroesPartialPagesAndFreesWholeOnes() throws Exception {
        // Proves discard reads back as zeroes and returns fully covered pages to the allocator.
        device = new MemoryDevice(loop, GIB, 512);
        int pages = 3;
        byte[] data = new byte[pages * MemoryDevice.PAGE_BYTES];
        new Prng(2).nextBytes(data);
        assertThat(probe.await(probe.submit(cb -> device.write(0, ByteBuffer.wrap(data), false, cb))))
                .isEqualTo(IoResult.OK);
        assertThat(device.allocatedPages()).isEqualTo(pages);
        // From the middle of page 0 to the middle of page 2: page 1 is freed, pages 0 and 2 are partly zeroed.
        long from = MemoryDevice.PAGE_BYTES / 2;
        long length = 2L * MemoryDevice.PAGE_BYTES;
        assertThat(probe.await(probe.submit(cb -> device.discard(from, length, cb)))).isEqualTo(IoResult.OK);
        assertThat(device.allocatedPages()).isEqualTo(pages - 1);
        ByteBuffer dst = ByteBuffer.allocate(data.length);
        assertThat(probe.await(probe.submit(cb -> device.read(0, dst, cb)))).isEqualTo(IoResult.OK);
        byte[] expected = data.clone();
        java.util.Arrays.fill(expected, (int) from, (int) (from + length), (byte) 0);
        assertThat(dst.array()).isEqualTo(expected);
        assertThat(device.counters().completedSectors(DeviceOp.DISCARD)).isEqualTo(length / 512);
    }

    @Test
    void badRangesAlignmentAndClosedDeviceComeBackAsValues() throws Exception {
        // Proves every malformed request completes with the right error status instead of throwing.
        device = new MemoryDevice(loop, GIB, 4096);
        ByteBuffer block = ByteBuffer.allocate(4096);
        assertThat(status(cb -> device.read(-4096, block.clear(), cb))).isEqualTo(IoStatus.OUT_OF_RANGE);
        assertThat(status(cb -> device.read(Long.MAX_VALUE - 4095, block.clear(), cb)))
                .isEqualTo(IoStatus.OUT_OF_RANGE);
        assertThat(status(cb -> device.write(GIB, block.clear(), false, cb))).isEqualTo(IoStatus.OUT_OF_RANGE);
        assertThat(status(cb -> device.write(GIB - 4096, ByteBuffer.allocate(8192), false, cb)))
                .isEqualTo(IoStatus.OUT_OF_RANGE);
        assertThat(status(cb -> device.discard(4096, Long.MAX_VALUE - 4095, cb))).isEqualTo(IoStatus.OUT_OF_RANGE);
        assertThat(status(cb -> device.discard(0, -4096, cb))).isEqualTo(IoStatus.OUT_OF_RANGE);
        assertThat(status(cb -> device.read(512, block.clear(), cb))).isEqualTo(IoStatus.MISALIGNED);
        assertThat(status(cb -> device.write(0, ByteBuffer.allocate(4096 + 512), false, cb)))
                .isEqualTo(IoStatus.MISALIGNED);
        assertThat(status(cb -> device.discard(0, 100, cb))).isEqualTo(IoStatus.MISALIGNED);
        assertThat(device.allocatedPages()).as("rejected writes store nothing").isZero();
        assertThat(device.counters().errors(DeviceOp.READ)).isEqualTo(3);
        assertThat(device.counters().submittedSectors(DeviceOp.WRITE)).as("rejected bytes are not counted").isZero();
        device.close();
        assertThat(status(cb -> device.read(0, block.clear(), cb))).isEqualTo(IoStatus.CLOSED);
        assertThat(status(cb -> device.write(0, block.clear(), false, cb))).isEqualTo(IoStatus.CLOSED);
        assertThat(status(device::flush)).isEqualTo(IoStatus.CLOSED);
        assertThat(status(cb -> device.discard(0, 4096, cb))).isEqualTo(IoStatus.CLOSED);
    }

    @Test
    void submittingFromAForeignThreadIsRefused() throws Exception {
        // Proves the thread rule is checked, not just documented.
        device = new MemoryDevice(loop, GIB, 4096);
        CompletableFuture<Throwable> thrown = new CompletableFuture<>();
        Thread foreign = new Thread(() -> {
            try {
                device.flush(result -> { });
                thrown.complete(null);
            } catch (IllegalStateException e) {
                thrown.complete(e);
            }
        });
        foreign.start();
        assertThat(thrown.get(CallbackProbe.TIMEOUT_SECONDS, java.util.concurrent.TimeUnit.SECONDS))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("owning loop");
    }

    private IoStatus status(java.util.function.Consumer<IoCallback> request) throws Exception {
        CompletableFuture<IoResult> result = probe.submit(request);
        IoResult outcome = probe.await(result);
        if (!outcome.ok()) {
            assertThat(outcome.message()).as("an error names the device").contains("memory");
        }
        return outcome.status();
    }
}
