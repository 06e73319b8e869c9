package io.blockcache.bench;

import io.blockcache.device.BlockDevice;
import io.blockcache.loop.Checks;
import io.blockcache.loop.SimLoop;
import io.blockcache.sim.HddConfig;
import io.blockcache.sim.HddModel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What <em>journaled</em> write-back would cost at best on the HDD model (docs/WRITEBACK.md "Why
 * epochs cost what they cost"): the I/O pattern alone, on a fresh disk, with no cache reads and no engine. It is a
 * bound to decide whether the format change is worth building, not a measurement of built code.
 *
 * <p>The pattern (after Koller et al., "Write Policies for Host-side Flash Caches", USENIX FAST 2013,
 * the journaled write-back policy): whole epochs — the writes between two client FLUSHes, in the order they were
 * written — are gathered into a transaction no larger than the log; the transaction's data and descriptors are
 * written sequentially into a log region on the backing disk, then one flush makes it durable; then its extents
 * are written in place in one ascending LBA sweep, {@link IdealSweep#DEPTH} in flight, in any order (after a cache
 * loss the log replays whatever the sweep did not finish), then one more flush, and the log may be reused. So the
 * backing disk plus its log always equals the volume at a FLUSH boundary, and in place the writes are as free to be
 * sorted as unordered writeback's — within one transaction.
 *
 * <p>Not modelled: the log header write that retires a transaction (one 4 KiB FUA write, or folded into the next
 * commit), the cache reads (the SSD model is far faster than the disk), and overlapping the next transaction's log
 * write with this one's sweep (the log would then be two regions; the head is shared anyway).
 */
final class JournaledBound {
    /** Log writes are this large at most (as writeback runs are). */
    static final int LOG_WRITE_BYTES_MAX = 1 << 20;
    /** A descriptor block lists this many extents (start sector + length, 8 bytes each) of a transaction. */
    static final int EXTENTS_PER_DESCRIPTOR = 512;
    private static final int BLOCK_BYTES = 4096;

    /** What one bound run measured. */
    record Result(long bytes, long elapsedNs, int transactions, long logBytesWritten) {
        double mibPerSecond() {
            return bytes / (1024.0 * 1024.0) / (elapsedNs / 1e9);
        }
    }

    private JournaledBound() {
    }

    /**
     * Journals and writes back {@code set} as written by an application that flushed after every
     * {@code writesPerFlush}-th write (0: never; the whole set is one epoch).
     *
     * @param volumeOffsetBytes where the volume's byte 0 sits on the disk; the log starts there too, where a log
     *     region after the backing header would (a real layout would move the data up by the log's size, which on
     *     a 4 TB disk changes no seek measurably; only time is measured, so the overlap is harmless)
     * @param logBytes the log region's size; every epoch must fit in it
     * @throws IllegalArgumentException if one epoch is larger than the log: it could not be made atomic this way
     */
    static Result run(HddConfig config, long volumeOffsetBytes, Extents set, int writesPerFlush, long logBytes) {
        SimLoop loop = new SimLoop();
        HddModel hdd = new HddModel(loop, config);
        List<int[]> transactions = transactions(set, writesPerFlush, logBytes);
        long startNs = loop.nowNs();
        long logWritten = 0;
        for (int[] transaction : transactions) {
            Extents log = logWrites(set, transaction);
            logWritten += log.totalBytes();
            FrontEndWriter.writeAll(loop, hdd, volumeOffsetBytes, log, IdealSweep.DEPTH);
            flush(loop, hdd);
            FrontEndWriter.writeAll(loop, hdd, volumeOffsetBytes, inPlace(set, transaction), IdealSweep.DEPTH);
            flush(loop, hdd);
        }
        return new Result(set.totalBytes(), loop.nowNs() - startNs, transactions.size(), logWritten);
    }

    /**
     * Cuts the write order into transactions of whole epochs, each at most {@code logBytes} with its descriptors.
     * Each transaction is the set's extent numbers in write order.
     */
    static List<int[]> transactions(Extents set, int writesPerFlush, long logBytes) {
        int count = set.count();
        int epochWrites = writesPerFlush == 0 ? count : writesPerFlush;
        List<int[]> out = new ArrayList<>();
        int txStart = 0;
        long txBytes = 0;
        for (int epochStart = 0; epochStart < count; epochStart += epochWrites) {
            int epochEnd = Math.min(count, epochStart + epochWrites);
            long epochBytes = 0;
            for (int k = epochStart; k < epochEnd; k++) {
                epochBytes += set.lengthBytes()[set.writeOrder()[k]];
            }
            Checks.require(logBytes(epochBytes, epochEnd - epochStart) <= logBytes,
                    "an epoch of %s bytes does not fit a log of %s bytes", epochBytes, logBytes);
            if (logBytes(txBytes + epochBytes, epochEnd - txStart) > logBytes) {
                out.add(Arrays.copyOfRange(set.writeOrder(), txStart, epochStart));
                txStart = epochStart;
                txBytes = 0;
            }
            txBytes += epochBytes;
        }
        if (txStart < count) {
            out.add(Arrays.copyOfRange(set.writeOrder(), txStart, count));
        }
        return out;
    }

    /** Log bytes of a transaction: its data, then descriptor blocks (the last one carries the commit checksum). */
    static long logBytes(long dataBytes, int extents) {
        long descriptors = Math.max(1, (extents + EXTENTS_PER_DESCRIPTOR - 1) / EXTENTS_PER_DESCRIPTOR);
        return dataBytes + descriptors * BLOCK_BYTES;
    }

    /** The transaction's log image as sequential writes of at most {@link #LOG_WRITE_BYTES_MAX}, from byte 0. */
    private static Extents logWrites(Extents set, int[] transaction) {
        long dataBytes = 0;
        for (int i : transaction) {
            dataBytes += set.lengthBytes()[i];
        }
        long total = logBytes(dataBytes, transaction.length);
        List<long[]> writes = new ArrayList<>();
        for (long at = 0; at < total; at += LOG_WRITE_BYTES_MAX) {
            writes.add(new long[] {at, Math.min(LOG_WRITE_BYTES_MAX, total - at)});
        }
        return Extents.sorted(writes);
    }

    /** The transaction's extents in ascending LBA order. */
    private static Extents inPlace(Extents set, int[] transaction) {
        List<long[]> extents = new ArrayList<>();
        for (int i : transaction) {
            extents.add(new long[] {set.startBytes()[i], set.lengthBytes()[i]});
        }
        extents.sort((a, b) -> Long.compare(a[0], b[0]));
        return Extents.sorted(extents);
    }

    private static void flush(SimLoop loop, BlockDevice device) {
        boolean[] flushed = {false};
        device.flush(result -> {
            Checks.check(result.ok(), "flush failed: %s", result);
            flushed[0] = true;
        });
        BenchRig.runUntil(loop, () -> flushed[0]);
    }
}
