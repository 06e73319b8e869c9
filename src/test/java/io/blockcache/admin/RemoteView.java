package io.blockcache.admin;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.ForwardingDevice;
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

    RemoteView(BlockDevice inner) {
        super(inner);
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
