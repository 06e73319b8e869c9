package io.blockcache.sim;

/**
 * One write that is not yet durable: a private copy of its data, its issue sequence (which orders the
 * crash image) and, once the device has acknowledged it, its completion order (which flushes refer to).
 */
final class PendingWrite {
    final long sequence;
    final long offsetBytes;
    final byte[] data;
    /** 0 while in flight; then the device-wide completion order, starting at 1. */
    long completionOrder;

    PendingWrite(long sequence, long offsetBytes, byte[] data) {
        this.sequence = sequence;
        this.offsetBytes = offsetBytes;
        this.data = data;
    }

    long lengthBytes() {
        return data.length;
    }
}
