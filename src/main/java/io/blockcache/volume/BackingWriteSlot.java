package io.blockcache.volume;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.IoCallback;
import java.nio.ByteBuffer;

/**
 * A place in the volume's {@link BackingWriteGate} taken before the data is ready: writeback reserves one when
 * it plans a write, before its cache reads, so that a front-end write arriving during those reads cannot get to
 * the backing device first and then be overwritten by the older data.
 *
 * <p>Exactly one of {@link #write} or {@link #cancel} must be called. Thread rule: the loop thread.
 */
public final class BackingWriteSlot {
    private final BlockDevice backingDevice;
    private final long backingOffsetBytes;
    private Runnable release;
    private ByteBuffer data;
    private IoCallback callback;
    private boolean fua;
    private boolean cancelled;
    private boolean submitted;

    BackingWriteSlot(BlockDevice backingDevice, long backingOffsetBytes) {
        this.backingDevice = backingDevice;
        this.backingOffsetBytes = backingOffsetBytes;
    }

    /** Called by the gate when every earlier overlapping write has finished. */
    void onTurn(Runnable gateRelease) {
        release = gateRelease;
        if (cancelled) {
            release.run();
        } else {
            submitIfReady();
        }
    }

    /** Writes {@code src} (not FUA) as soon as it is this slot's turn; {@code done} gets the device result. */
    public void write(ByteBuffer src, IoCallback done) {
        write(src, false, done);
    }

    /**
     * Writes {@code src} as soon as it is this slot's turn, with FUA if {@code forceUnitAccess} (on an object store:
     * complete once the chunk's PUT succeeded); {@code done} gets the device result.
     */
    public void write(ByteBuffer src, boolean forceUnitAccess, IoCallback done) {
        if (cancelled || data != null) {
            throw new IllegalStateException("backing write slot used twice");
        }
        data = src;
        callback = done;
        fua = forceUnitAccess;
        submitIfReady();
    }

    /** Gives the place up without writing (the data could not be read). */
    public void cancel() {
        if (cancelled || data != null) {
            throw new IllegalStateException("backing write slot used twice");
        }
        cancelled = true;
        if (release != null) {
            release.run();
        }
    }

    private void submitIfReady() {
        if (release == null || data == null || submitted) {
            return;
        }
        submitted = true;
        backingDevice.write(backingOffsetBytes, data, fua, result -> {
            release.run();
            callback.complete(result);
        });
    }
}
