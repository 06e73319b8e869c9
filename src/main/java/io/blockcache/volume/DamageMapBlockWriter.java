package io.blockcache.volume;

import static io.blockcache.loop.Checks.check;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import io.blockcache.format.DamageMapBlock;
import io.blockcache.format.DamageMapGeometry;
import io.blockcache.loop.EventLoop;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.function.LongSupplier;

/**
 * Keeps one block of a damage map on the backing device (docs/FORMAT.md §4.1): what is durable, what is being
 * written, what the next write should hold, and who waits for it.
 *
 * <p>Writing rule (what makes a torn write harmless, as for the superblock pair): one write in flight at a time,
 * always with FUA, to the copy that does not hold the newest durable version, alternating only after a write
 * succeeded. A torn or failed write can therefore destroy only the copy being written; the other holds the
 * previous durable version, whose marks the engine still relies on.
 *
 * <p>Marks and clears: a mark is satisfied once a completed write holds its bits and no write in flight lacks
 * them (a clear in flight would remove them); a clear only changes what the next write holds. After a failed
 * write the durable bits are those in both the old version and the failed one (either may be on the device),
 * every waiter fails, and nothing is retried until the next mark or sweep, so a dead device is not hammered.
 *
 * <p>The consistency flag (docs/FORMAT.md §4.1, {@link DamageMapBlock#FLAG_CONSISTENT_AS_OF_EPOCH}): every write
 * carries the epoch its map wants at that moment ({@code wantedEpoch}, -1 for none). What the device may hold is
 * followed too, so that a clear is known to be durable: after a failed write a flag in either version counts as
 * possibly there.
 *
 * <p>Bound: waiters are front-end writes waiting for their mark, at most one per in-flight cached write of the
 * volume (bounded by the NBD connections' in-flight limits); a sweep adds one more.
 *
 * <p>Thread rule: the loop thread.
 */
final class DamageMapBlockWriter {
    private final BlockDevice backing;
    private final UUID backingUuid;
    private final DamageMapGeometry geometry;
    private final int blockIndex;
    private final DamageMapStats stats;
    private final LongSupplier wantedEpoch;
    /** The consistent-as-of epoch a reader may find on the device (-1: no flag); of the write in flight. */
    private long durableEpoch = -1;
    private long inFlightEpoch = -1;
    private final long[] durable = new long[DamageMapBlock.WORDS];
    private final long[] wanted = new long[DamageMapBlock.WORDS];
    private long[] inFlight;
    private long sequence;
    private int nextCopy;
    private boolean durableValid;
    private List<Waiter> waiters = new ArrayList<>();

    /** A caller waiting for bits {@code [from, to)} to be durable in a write of at least {@code sequenceMin}. */
    private record Waiter(int from, int to, long sequenceMin, IoCallback callback) {
    }

    /**
     * Starts from what the device holds: {@code found}, the copy a reader would choose (its block null when
     * neither copy is valid; then nothing is relied on and the first write goes to copy A).
     */
    DamageMapBlockWriter(BlockDevice backing, UUID backingUuid, DamageMapGeometry geometry, int blockIndex,
                         DamageMapBlock.Chosen found, DamageMapStats stats, LongSupplier wantedEpoch) {
        this.backing = backing;
        this.wantedEpoch = wantedEpoch;
        this.backingUuid = backingUuid;
        this.geometry = geometry;
        this.blockIndex = blockIndex;
        this.stats = stats;
        if (found.block() != null) {
            System.arraycopy(found.block().words(), 0, durable, 0, DamageMapBlock.WORDS);
            System.arraycopy(durable, 0, wanted, 0, DamageMapBlock.WORDS);
            sequence = found.block().sequence();
            nextCopy = 1 - found.copy();
            durableValid = true;
            boolean flagged = (found.block().flags() & DamageMapBlock.FLAG_CONSISTENT_AS_OF_EPOCH) != 0;
            durableEpoch = flagged ? found.block().epoch() : -1;
        }
    }

    /** True if a reader may find this block flagged consistent now, or will once the write in flight lands. */
    boolean mayBeFlagged() {
        return durableEpoch >= 0 || (inFlight != null && inFlightEpoch >= 0);
    }

    /** True if regions {@code [from, to)} of this block are durably marked and no write in flight clears them. */
    boolean covers(int from, int to) {
        return allSet(durable, from, to) && (inFlight == null || allSet(inFlight, from, to));
    }

    /** True if region {@code region} is marked or about to be. */
    boolean wanted(int region) {
        return (wanted[region >>> 6] & (1L << region)) != 0;
    }

    /** True while the device holds no valid copy of this block (a fresh open of a map never written). */
    boolean needsFirstWrite() {
        return !durableValid;
    }

    /** Marks {@code [from, to)}; {@code done} once durably marked, or with the error of the write that failed. */
    void mark(int from, int to, IoCallback done) {
        for (int region = from; region < to; region++) {
            wanted[region >>> 6] |= 1L << region;
        }
        waiters.add(new Waiter(from, to, 0, done));
        stats.markWaits.incrementAndGet();
        if (inFlight == null) {
            startWrite();
        }
    }

    /** Unmarks {@code region} in the next write (a sweep found it clean and durable on the backing device). */
    void clear(int region) {
        wanted[region >>> 6] &= ~(1L << region);
    }

    /**
     * Makes what is wanted now durable (the sweep's clears, or a first write): {@code done} after a write that
     * started after this call, or at once (as a task) when there is nothing to write.
     */
    void sync(EventLoop loop, IoCallback done) {
        if (inFlight == null && durableValid && Arrays.equals(wanted, durable)
                && durableEpoch == wantedEpoch.getAsLong()) {
            loop.execute(() -> done.complete(IoResult.OK));
            return;
        }
        waiters.add(new Waiter(0, 0, sequence + 1, done));
        if (inFlight == null) {
            startWrite();
        }
    }

    private void startWrite() {
        check(inFlight == null, "damage map block %s: a second write in flight", blockIndex);
        for (Waiter waiter : waiters) {
            // A waiting mark is always written, whatever cleared it meanwhile: every write settles its waiters.
            for (int region = waiter.from; region < waiter.to; region++) {
                wanted[region >>> 6] |= 1L << region;
            }
        }
        inFlight = wanted.clone();
        inFlightEpoch = wantedEpoch.getAsLong();
        sequence++;
        long written = sequence;
        boolean flagged = inFlightEpoch >= 0;
        DamageMapBlock block = new DamageMapBlock(written, backingUuid, geometry.regionBytes(), blockIndex,
                geometry.blockCount(), flagged ? DamageMapBlock.FLAG_CONSISTENT_AS_OF_EPOCH : 0,
                flagged ? inFlightEpoch : 0, inFlight);
        stats.blockWrites.incrementAndGet();
        // FUA: a mark must be durable before the write it covers is acknowledged (docs/FORMAT.md §4.1).
        backing.write(geometry.copyOffsetBytes(blockIndex, nextCopy), ByteBuffer.wrap(block.encode()), true,
                result -> written(written, result));
    }

    private void written(long writtenSequence, IoResult result) {
        long[] content = inFlight;
        inFlight = null;
        List<Waiter> settled = new ArrayList<>();
        IoResult outcome = result;
        if (result.ok()) {
            System.arraycopy(content, 0, durable, 0, DamageMapBlock.WORDS);
            durableEpoch = inFlightEpoch;
            durableValid = true;
            nextCopy = 1 - nextCopy;
            List<Waiter> still = new ArrayList<>();
            for (Waiter waiter : waiters) {
                boolean done = writtenSequence >= waiter.sequenceMin && allSet(durable, waiter.from, waiter.to);
                (done ? settled : still).add(waiter);
            }
            waiters = still;
            if (!waiters.isEmpty() || !Arrays.equals(wanted, durable)) {
                startWrite();
            }
        } else {
            stats.blockWriteErrors.incrementAndGet();
            for (int w = 0; w < DamageMapBlock.WORDS; w++) {
                durable[w] &= content[w]; // the device holds the old version or this one
            }
            durableEpoch = Math.max(durableEpoch, inFlightEpoch); // either may be read: a flag in one may be there
            System.arraycopy(durable, 0, wanted, 0, DamageMapBlock.WORDS);
            settled = waiters;
            waiters = new ArrayList<>();
            outcome = IoResult.error(IoStatus.IO_ERROR, "damage map write failed: " + result.message());
        }
        for (Waiter waiter : settled) {
            waiter.callback.complete(outcome);
        }
    }

    private static boolean allSet(long[] words, int from, int to) {
        for (int region = from; region < to; region++) {
            if ((words[region >>> 6] & (1L << region)) == 0) {
                return false;
            }
        }
        return true;
    }
}
