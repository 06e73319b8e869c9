package io.blockcache.sim;

/**
 * One write that is not yet durable: a private copy of its data, its issue sequence, the device's completion
 * order when it was submitted (its submit mark: every write acknowledged up to there must land before it)
 * and, once the device has acknowledged it, its own completion order (which flushes refer to).
 */
final class PendingWrite {
    final long sequence;
    final long offsetBytes;
    final byte[] data;
    final long submitMark;
    /** 0 while in flight; then the device-wide completion order, starting at 1. */
    long completionOrder;
    /**
     * For devices that store a write in several units ({@link ObjectStoreModel}: one per chunk object it touches):
     * units not yet stored durably; the write is durable when it reaches 0.
     */
    int unitsPending;

    PendingWrite(long sequence, long offsetBytes, byte[] data, long submitMark) {
        this.sequence = sequence;
        this.offsetBytes = offsetBytes;
        this.data = data;
        this.submitMark = submitMark;
    }

    long lengthBytes() {
        return data.length;
    }
}
