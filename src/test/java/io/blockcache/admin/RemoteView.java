package io.blockcache.admin;

import java.nio.ByteBuffer;
import io.blockcache.device.BlockDevice;
import io.blockcache.device.ForwardingDevice;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import io.blockcache.device.ObjectStoreDevice;
import io.blockcache.device.ObjectStoreStats;
import io.blockcache.device.RemoteDevice;

/**
 * A local device dressed as a remote backing whose client state a test sets, for the stats of remote backings; with
 * {@link #objectStore} set it is an object-store backing too.
 */
final class RemoteView extends ForwardingDevice implements RemoteDevice, ObjectStoreDevice {
    volatile ObjectStoreStats objectStore;
    volatile boolean connected = true;
    volatile long breaks;
    volatile long reconnects;
    volatile long replayLogBytes;
    volatile long requestTimeouts;
    /** While set, every write fails with EIO (a backing device, and the damage map on it, that takes no writes). */
    volatile boolean failWrites;

    RemoteView(BlockDevice inner) {
        super(inner);
    }

    @Override
    public void write(long offsetBytes, ByteBuffer src, boolean fua, IoCallback callback) {
        if (failWrites) {
            callback.complete(IoResult.error(IoStatus.IO_ERROR, "injected write error"));
        } else {
            super.write(offsetBytes, src, fua, callback);
        }
    }

    @Override
    public boolean connected() {
        return connected;
    }

    @Override
    public String state() {
        return connected ? "connected (1 connections)" : "away: connection refused (reconnecting)";
    }

    @Override
    public long breaks() {
        return breaks;
    }

    @Override
    public long reconnects() {
        return reconnects;
    }

    @Override
    public long requestTimeouts() {
        return requestTimeouts;
    }

    @Override
    public long replayLogBytes() {
        return replayLogBytes;
    }

    @Override
    public ObjectStoreStats objectStoreStats() {
        return objectStore;
    }
}
