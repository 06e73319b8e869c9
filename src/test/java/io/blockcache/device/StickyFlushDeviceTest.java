package io.blockcache.device;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.loop.Prng;
import io.blockcache.loop.SimLoop;
import io.blockcache.sim.SmallDevices;
import io.blockcache.sim.SsdModel;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Flush errors stick per backing device, whoever's flush failed and whatever flushes were in flight. */
class StickyFlushDeviceTest {
    private final SimLoop loop = new SimLoop();
    private final SsdModel disk = SmallDevices.ssd(loop, 1 << 20);
    private final StickyFlushDevice device = new StickyFlushDevice(disk);

    @Test
    void afterOneFailedFlushNoFlushOrFuaWriteSucceeds() {
        // Proves the device below reports its failure once (the next flush of the plain device succeeds) while the
        // sticky view keeps failing flushes and FUA writes, naming the first failure; plain writes still work.
        disk.setFlushFailures(new Prng(1), 1.0);
        assertThat(run(device::flush).ok()).isFalse();
        disk.setFlushFailures(new Prng(1), 0);
        assertThat(run(disk::flush).ok()).as("the plain device forgets its failure").isTrue();
        IoResult flush = run(device::flush);
        assertThat(flush.ok()).isFalse();
        assertThat(flush.message()).contains("an earlier flush of this device failed").contains("injected fault");
        assertThat(run(cb -> device.write(0, ByteBuffer.allocate(4096), true, cb)).ok()).isFalse();
        assertThat(run(cb -> device.write(0, ByteBuffer.allocate(4096), false, cb)).ok()).isTrue();
        assertThat(device.firstFailure()).contains("injected fault");
    }

    @Test
    void aFlushInFlightWhenAnotherFailsDoesNotReportSuccess() {
        // Proves a flush submitted before another one failed, and completing after the failure, fails too: the
        // failure may have lost writes it covered.
        disk.setFlushFailures(new Prng(3), 0);
        List<IoResult> results = new ArrayList<>();
        device.write(0, ByteBuffer.allocate(4096), false, results::add);
        loop.runUntilIdle();
        disk.setFlushFailures(new Prng(3), 1.0);
        device.flush(results::add); // fails: 100 us
        disk.setFlushFailures(new Prng(3), 0);
        device.flush(results::add); // would succeed after the SSD's flush time, later than the failure
        loop.runUntilIdle();
        assertThat(results).hasSize(3);
        assertThat(results.get(1).ok()).isFalse();
        assertThat(results.get(2).ok()).as("the flush that completed after the failure").isFalse();
    }

    @Test
    void afterOneFailedFlushNoFuaZeroingSucceedsEither() {
        // Proves the rule holds for devices that zero ranges themselves (NBD WRITE_ZEROES): FUA zeroing works until
        // a flush fails, then fails; zeroing without FUA still works.
        ForwardingDevice zeroing = new ForwardingDevice(disk) {
            @Override
            public boolean writesZeroes() {
                return true;
            }

            @Override
            public void writeZeroes(long offsetBytes, long lengthBytes, boolean fua, IoCallback callback) {
                inner().write(offsetBytes, ByteBuffer.allocate((int) lengthBytes), fua, callback);
            }
        };
        StickyFlushDevice sticky = new StickyFlushDevice(zeroing);
        assertThat(sticky.writesZeroes()).isTrue();
        assertThat(run(cb -> sticky.writeZeroes(0, 4096, true, cb)).ok()).isTrue();
        disk.setFlushFailures(new Prng(1), 1.0);
        assertThat(run(sticky::flush).ok()).isFalse();
        disk.setFlushFailures(new Prng(1), 0);
        assertThat(run(cb -> sticky.writeZeroes(0, 4096, true, cb)).ok()).isFalse();
        assertThat(run(cb -> sticky.writeZeroes(0, 4096, false, cb)).ok()).isTrue();
    }

    private IoResult run(java.util.function.Consumer<IoCallback> op) {
        IoResult[] result = {null};
        op.accept(r -> result[0] = r);
        loop.runUntilIdle();
        assertThat(result[0]).isNotNull();
        return result[0];
    }
}
