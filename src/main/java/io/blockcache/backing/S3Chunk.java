package io.blockcache.backing;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * One chunk of an {@code s3://} volume staged in memory ({@link S3Device}): its bytes, which blocks writes have
 * filled, whether the rest has been read from the old object, and the write sequence numbers that say which
 * writes a PUT made durable.
 *
 * <p>Sequence numbers: every write piece staged gets the device's next number. A chunk's writes not yet in any
 * PUT start at {@link #firstUnsentSeq}; the PUT in flight (at most one per chunk, so PUTs of one key never race)
 * carries those from {@link #inFlightFirstSeq} to {@link #inFlightLastSeq}. A write is durable once no undurable
 * range of its chunk starts at or below its number.
 *
 * <p>Thread rule: the owning loop's thread only.
 */
final class S3Chunk {
    final long index;
    final String objectName;
    final byte[] data;
    final int lengthBytes;
    /** Blocks (of {@link S3Device#LOGICAL_BLOCK_BYTES}) written since the chunk was staged. */
    final BitSet written;
    final int blocks;
    /** True once the old object's bytes fill every block that no write had filled. */
    boolean baseLoaded;
    boolean baseFetching;
    /** Whether a PUT is wanted (chunk complete, FUA, flush, or room needed) once the chunk is whole. */
    boolean putWanted;
    boolean putInFlight;
    long lastWriteSeq;
    /** First write not in any PUT, 0 if none. */
    long firstUnsentSeq;
    /** First and last write carried by the PUT in flight, 0 if none. */
    long inFlightFirstSeq;
    long inFlightLastSeq;
    /** Reads waiting for the old object's bytes; bounded by the engine's reads in flight. */
    final List<S3Staging.Parked> baseWaiters = new ArrayList<>();
    /** FUA writes waiting for a PUT that covers them; bounded by the engine's writes in flight. */
    final List<S3Staging.Waiter> fuaWaiters = new ArrayList<>();

    S3Chunk(long index, int lengthBytes, int blockBytes) {
        this.index = index;
        this.objectName = S3Volume.chunkName(index);
        this.lengthBytes = lengthBytes;
        this.data = new byte[lengthBytes];
        this.blocks = lengthBytes / blockBytes;
        this.written = new BitSet(blocks);
    }

    /** Whether writes have filled every block since staging (then the old object is not needed). */
    boolean fullyWritten() {
        return written.cardinality() == blocks;
    }

    /** Whether every byte is the newest: written, or read from the old object. */
    boolean whole() {
        return baseLoaded || fullyWritten();
    }

    /** Whether blocks [first, first + count) were all written since staging. */
    boolean writtenRange(int firstBlock, int blockCount) {
        int clear = written.nextClearBit(firstBlock);
        return clear >= firstBlock + blockCount;
    }

    /** Records a write piece with sequence number {@code seq}. */
    void recordWrite(int firstBlock, int blockCount, long seq) {
        written.set(firstBlock, firstBlock + blockCount);
        lastWriteSeq = seq;
        if (firstUnsentSeq == 0) {
            firstUnsentSeq = seq;
        }
    }

    /** Whether some write is not yet in a successful PUT. */
    boolean dirty() {
        return firstUnsentSeq != 0 || putInFlight;
    }

    /** The smallest sequence number of a write not yet durable, or 0 if every write is durable. */
    long oldestUndurableSeq() {
        long oldest = putInFlight ? inFlightFirstSeq : 0;
        if (firstUnsentSeq != 0 && (oldest == 0 || firstUnsentSeq < oldest)) {
            oldest = firstUnsentSeq;
        }
        return oldest;
    }

    /** Takes the writes so far into a new PUT; returns the bytes to send (a copy: writes go on meanwhile). */
    byte[] startPut() {
        putInFlight = true;
        putWanted = false;
        inFlightFirstSeq = firstUnsentSeq;
        inFlightLastSeq = lastWriteSeq;
        firstUnsentSeq = 0;
        return data.clone();
    }

    /** Ends the PUT in flight; on failure its writes count as unsent again. */
    void endPut(boolean ok) {
        putInFlight = false;
        if (!ok && (firstUnsentSeq == 0 || inFlightFirstSeq < firstUnsentSeq)) {
            firstUnsentSeq = inFlightFirstSeq;
        }
        inFlightFirstSeq = 0;
    }

    /** Fills every block no write has filled from {@code base}, the old object's bytes. */
    void fillFromBase(byte[] base, int blockBytes) {
        int block = written.nextClearBit(0);
        while (block < blocks) {
            int end = Math.min(blocks, written.nextSetBit(block) < 0 ? blocks : written.nextSetBit(block));
            System.arraycopy(base, block * blockBytes, data, block * blockBytes, (end - block) * blockBytes);
            block = written.nextClearBit(end);
        }
        baseLoaded = true;
    }
}
