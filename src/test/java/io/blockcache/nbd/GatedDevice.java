package io.blockcache.nbd;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.ForwardingDevice;
import io.blockcache.device.IoCallback;
import io.blockcache.loop.EventLoop;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * A test decorator that parks reads while its gate is closed, so a test can hold requests in flight at a
 * known point without sleeping. Writes and flushes pass straight through.
 */
final class GatedDevice extends ForwardingDevice {
    private final EventLoop loop;
    private final List<Runnable> parked = new ArrayList<>();
    private final Semaphore parkedSignal = new Semaphore(0);
    private volatile boolean closedGate;

    GatedDevice(BlockDevice inner, EventLoop loop) {
        super(inner);
        this.loop = loop;
    }

    void closeGate() {
        closedGate = true;
    }

    /** Opens the gate and submits the parked reads (on the loop). */
    void openGate() {
        loop.execute(() -> {
            closedGate = false;
            parked.forEach(Runnable::run);
            parked.clear();
        });
    }

    /** Waits until {@code count} more reads have been parked. */
    boolean awaitParked(int count) throws InterruptedException {
        return parkedSignal.tryAcquire(count, 10, TimeUnit.SECONDS);
    }

    @Override
    public void read(long offsetBytes, ByteBuffer dst, IoCallback callback) {
        if (closedGate) {
            parked.add(() -> inner().read(offsetBytes, dst, callback));
            parkedSignal.release();
        } else {
            inner().read(offsetBytes, dst, callback);
        }
    }
}
