package io.blockcache.device;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.loop.RealLoop;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Queue depth and close(), proven with channels that hold their callers at a known point. */
class FileDeviceConcurrencyTest {
    private static final int FILE_BYTES = 1 << 20;

    @TempDir
    Path dir;

    private final RealLoop loop = new RealLoop("file-device-concurrency-test");
    private final CallbackProbe probe = new CallbackProbe(loop);
    private FileDevice device;

    @AfterEach
    void closeDeviceAndLoop() throws Exception {
        if (device != null) {
            probe.onLoopAndWait(device::close);
            assertThat(device.threadsStopped()).isTrue();
        }
        loop.close();
        assertThat(loop.failure()).as("the loop saw no exception").isNull();
        assertThat(probe.reentered.get()).as("callbacks run inside submit").isZero();
        assertThat(probe.duplicates.get()).as("callbacks run twice").isZero();
    }

    @Test
    void exactlyQueueDepthReadsAreInsideTheChannelAtOnceAndExecutingMaxReportsIt() throws Exception {
        // Proves queueDepth requests reach the channel concurrently (a barrier of that size trips) and never more.
        int queueDepth = 8;
        int rounds = 3;
        CyclicBarrier barrier = new CyclicBarrier(queueDepth);
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger insideMax = new AtomicInteger();
        AtomicInteger barrierFailures = new AtomicInteger();
        FileChannel gated = new DelegatingFileChannel(realChannel()) {
            @Override
            public int read(ByteBuffer dst, long position) throws IOException {
                insideMax.accumulateAndGet(inside.incrementAndGet(), Math::max);
                try {
                    barrier.await(CallbackProbe.TIMEOUT_SECONDS, TimeUnit.SECONDS);
                    return delegate.read(dst, position);
                } catch (InterruptedException | BrokenBarrierException | TimeoutException e) {
                    barrierFailures.incrementAndGet();
                    throw new IOException("fewer than " + queueDepth + " reads arrived together", e);
                } finally {
                    inside.decrementAndGet();
                }
            }
        };
        device = new FileDevice(loop, gated, "gated", FILE_BYTES,
                FileDeviceOptions.DEFAULTS.withQueueDepth(queueDepth), 4096);

        List<CompletableFuture<IoResult>> reads = new ArrayList<>();
        for (int i = 0; i < queueDepth * rounds; i++) {
            long offset = i * 4096L;
            reads.add(probe.submit(cb -> device.read(offset, ByteBuffer.allocate(4096), cb)));
        }
        for (CompletableFuture<IoResult> read : reads) {
            assertThat(probe.await(read)).isEqualTo(IoResult.OK);
        }
        assertThat(barrierFailures.get()).isZero();
        assertThat(insideMax.get()).as("calls inside the channel at once").isEqualTo(queueDepth);
        assertThat(device.executingMax()).as("measured queue depth").isEqualTo(queueDepth);
        assertThat(device.executing()).isZero();
        assertThat(device.counters().completedSectors(DeviceOp.READ)).isEqualTo(queueDepth * rounds * 8L);
        assertThat(device.counters().inFlightMax()).isBetween((long) queueDepth, (long) queueDepth * rounds);
    }

    @Test
    void closeWithIoInFlightAnswersEveryRequestOnceWithClosedAndStopsTheThreads() throws Exception {
        // Proves close(): executing and queued requests complete once with CLOSED, threads end, later submits fail.
        int queueDepth = 4;
        int requests = 10;
        CountDownLatch entered = new CountDownLatch(queueDepth);
        CountDownLatch released = new CountDownLatch(1);
        AtomicInteger inside = new AtomicInteger();
        FileChannel blocking = new DelegatingFileChannel(realChannel()) {
            @Override
            public int read(ByteBuffer dst, long position) throws IOException {
                inside.incrementAndGet();
                entered.countDown();
                try {
                    if (!released.await(CallbackProbe.TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                        throw new IOException("test channel was never closed");
                    }
                } catch (InterruptedException e) {
                    throw new IOException(e);
                }
                // Like a real FileChannel whose close() cuts off a blocked call.
                throw new AsynchronousCloseException();
            }

            @Override
            protected void implCloseChannel() throws IOException {
                released.countDown();
                super.implCloseChannel();
            }
        };
        device = new FileDevice(loop, blocking, "blocking", FILE_BYTES,
                FileDeviceOptions.DEFAULTS.withQueueDepth(queueDepth), 4096);
        List<CompletableFuture<IoResult>> reads = new ArrayList<>();
        for (int i = 0; i < requests; i++) {
            long offset = i * 4096L;
            reads.add(probe.submit(cb -> device.read(offset, ByteBuffer.allocate(4096), cb)));
        }
        assertThat(entered.await(CallbackProbe.TIMEOUT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(device.executing()).isEqualTo(queueDepth);

        probe.onLoopAndWait(device::close);
        for (CompletableFuture<IoResult> read : reads) {
            IoResult result = probe.await(read);
            assertThat(result.status()).isEqualTo(IoStatus.CLOSED);
            assertThat(result.message()).contains("read offset=", "on blocking");
        }
        assertThat(inside.get()).as("queued requests never reached the channel").isEqualTo(queueDepth);
        assertThat(device.threadsStopped()).isTrue();
        assertThat(probe.calls.get()).isEqualTo(requests);
        assertThat(device.counters().errors(DeviceOp.READ)).isEqualTo(requests);
        assertThat(device.counters().inFlight()).isZero();

        IoResult later = probe.await(probe.submit(cb -> device.write(0, ByteBuffer.allocate(4096), false, cb)));
        assertThat(later.status()).isEqualTo(IoStatus.CLOSED);
        assertThat(probe.calls.get()).isEqualTo(requests + 1);
        assertThat(device.completionsDropped()).isZero();
    }

    private FileChannel realChannel() throws IOException {
        Path file = dir.resolve("data");
        Files.write(file, new byte[FILE_BYTES]);
        return FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
    }
}
