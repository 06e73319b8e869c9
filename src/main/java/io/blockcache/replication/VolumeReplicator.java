package io.blockcache.replication;

import io.blockcache.device.IoCallback;
import io.blockcache.device.IoResult;
import io.blockcache.device.IoStatus;
import io.blockcache.index.LookupVisitor;
import io.blockcache.index.ExtentLocation;
import io.blockcache.loop.EventLoop;
import io.blockcache.volume.ReplicationHooks;
import io.blockcache.volume.Volume;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The serving node's side of one volume's replication (docs/SCALE.md, "Replication"): every write, write-zeroes and
 * trim is numbered and appended, in the order the volume sees them, to the replicated log — the records between two
 * FLUSHes in one entry — and a FLUSH or FUA write completes only when the engine finished it <em>and</em> the log
 * holds everything it covers on a quorum. When data is known to be on the flushed backing store (writeback marked it
 * clean, or it went around the cache and a FLUSH followed), a PRUNE tells the members to drop their copy.
 *
 * <p>What it tracks mirrors the members' {@link DirtyReplica}: which request last wrote each sector ({@link SectorMap}
 * without data) and which requests the engine has not finished. A piece is pruned only when the request that last
 * wrote it has finished, so data of a request still on its way is never dropped.
 *
 * <p>Once a batch fails (the node lost the lead or its quorum), every FLUSH and FUA write waiting or to come fails
 * with EIO: this node can no longer promise durability, and another node takes over.
 *
 * <p>Thread rule: the loop thread, except that {@link ReplicaNode#append}'s futures complete on Ratis threads and
 * hand back through {@link EventLoop#execute}.
 */
public final class VolumeReplicator implements ReplicationHooks {
    /**
     * The longest a record waits in the open batch when nothing waits for it (a trim's, a prune's, a write's). Long
     * enough that the writes between two FLUSHes and writeback's prunes ride in the FLUSH's entry instead of a timer's
     * entry of their own: at 20 ms a FLUSH every 32 writes took 2.5 entries (measured 2026-12-07, docs/BENCHMARKS.md
     * "Replication"); nothing waits for these records, so only the replica's lag grows.
     */
    static final long BATCH_DELAY_NS = 200_000_000L;

    private final EventLoop loop;
    private final String name;
    private final Volume volume;
    private final ReplicaLog log;
    private final long term;
    private final SectorMap written = new SectorMap();
    private final Set<Long> unfinished = new HashSet<>();
    /** Pieces of finished requests that are not dirty in the cache: on the backing store after the next FLUSH. */
    private List<long[]> awaitingFlush = new ArrayList<>();
    private final ArrayDeque<Batch> batches = new ArrayDeque<>();
    private final java.util.PriorityQueue<Waiter> waiters =
            new java.util.PriorityQueue<>(java.util.Comparator.comparingLong(Waiter::seq));
    private ReplicaRecords open = new ReplicaRecords();
    private long openHighestSeq;
    private boolean sendQueued;
    private long nextSeq;
    private long appendedSeq;
    private long durableSeq;
    private String failure;

    private static final class Batch {
        final long highestSeq;
        boolean done;
        String failure;

        Batch(long highestSeq) {
            this.highestSeq = highestSeq;
        }
    }

    private record Waiter(long seq, Consumer<String> then) {
    }

    /**
     * Replicates {@code volume} (named {@code name} in the log) into {@code log}, its node serving since {@code term};
     * request numbers continue after {@code highestSeq}, the highest the replica has seen.
     */
    VolumeReplicator(EventLoop loop, String name, Volume volume, ReplicaLog log, long term, long highestSeq) {
        this.loop = loop;
        this.name = name;
        this.volume = volume;
        this.log = log;
        this.term = term;
        this.nextSeq = highestSeq + 1;
        this.appendedSeq = highestSeq;
        this.durableSeq = highestSeq;
    }

    /** Why replication failed, or null. */
    public String failure() {
        return failure;
    }

    @Override
    public IoCallback writing(long startSector, ByteBuffer data, boolean fua, IoCallback done) {
        long seq = nextSeq++;
        long lengthSectors = data.remaining() / SectorMap.SECTOR_BYTES;
        byte[] copy = new byte[data.remaining()];
        data.duplicate().get(copy);
        int chunkSectors = ReplicaNode.BATCH_BYTES_MAX / 2 / SectorMap.SECTOR_BYTES;
        for (long done2 = 0; done2 < lengthSectors; done2 += chunkSectors) {
            long n = Math.min(chunkSectors, lengthSectors - done2);
            open.write(name, seq, startSector + done2, n, copy, (int) (done2 * SectorMap.SECTOR_BYTES));
            recorded(seq);
        }
        written.put(startSector, lengthSectors, seq, null, 0);
        if (fua) {
            send(); // durable before it completes: to the quorum now, beside the engine's own write
        }
        return finishing(seq, startSector, lengthSectors, fua, done);
    }

    @Override
    public IoCallback zeroing(long startSector, long lengthSectors, boolean fua, IoCallback done) {
        long seq = nextSeq++;
        open.zeroes(name, seq, startSector, lengthSectors);
        recorded(seq);
        written.put(startSector, lengthSectors, seq, null, 0);
        if (fua) {
            send();
        }
        return finishing(seq, startSector, lengthSectors, fua, done);
    }

    @Override
    public IoCallback trimming(long startSector, long lengthSectors, IoCallback done) {
        long seq = nextSeq++;
        open.trim(name, seq, startSector, lengthSectors);
        recorded(seq);
        written.remove(startSector, lengthSectors);
        return done;
    }

    @Override
    public IoCallback flushing(IoCallback done) {
        long covers = nextSeq - 1;
        if (open.count() > 0) {
            send(); // on its way to the quorum while the engine flushes the cache: the two run side by side
        }
        List<long[]> flushed = awaitingFlush;
        awaitingFlush = new ArrayList<>();
        return result -> {
            if (!result.ok()) {
                awaitingFlush.addAll(flushed); // not on the backing store for sure: the next FLUSH tries again
                done.complete(result);
                return;
            }
            whenDurable(covers, why -> {
                if (why != null) {
                    done.complete(IoResult.error(IoStatus.IO_ERROR, why));
                    return;
                }
                prune(flushed);
                done.complete(IoResult.OK);
            });
        };
    }

    @Override
    public void cleaned(long startSector, int lengthSectors) {
        List<long[]> pieces = new ArrayList<>();
        for (SectorMap.Piece piece : written.overlapping(startSector, startSector + lengthSectors)) {
            if (!unfinished.contains(piece.seq())) {
                pieces.add(new long[] {piece.start(), piece.lengthSectors(), piece.seq()});
            }
        }
        prune(pieces);
    }

    /** Adopts a piece the replica held before this node served and that {@link #replay} wrote into the volume. */
    void adopt(long startSector, long lengthSectors, long seq) {
        written.put(startSector, lengthSectors, seq, null, 0);
    }

    /** The replayed pieces are on the backing store or dirty in the cache, after a FLUSH: prunes the former. */
    void replayFlushed() {
        List<long[]> flushed = awaitingFlush;
        awaitingFlush = new ArrayList<>();
        prune(flushed);
    }

    /** The request {@code seq} finished in the engine: its pieces no longer dirty in the cache wait for a FLUSH. */
    void finished(long seq, long startSector, long lengthSectors) {
        unfinished.remove(seq);
        volume.index().lookup(startSector, (int) lengthSectors, new LookupVisitor() {
            @Override
            public void hole(long start, int length) {
                awaitingFlush.add(new long[] {start, length, seq});
            }

            @Override
            public void extent(long start, int length, long location, int crc32c, int crcOffsetInBucketSectors,
                               int crcLengthSectors) {
                if (!ExtentLocation.dirty(location)) {
                    awaitingFlush.add(new long[] {start, length, seq});
                }
            }
        });
    }

    private IoCallback finishing(long seq, long startSector, long lengthSectors, boolean fua, IoCallback done) {
        unfinished.add(seq);
        return result -> {
            finished(seq, startSector, lengthSectors);
            if (!result.ok() || !fua) {
                done.complete(result);
                return;
            }
            whenDurable(seq, why -> done.complete(why == null ? IoResult.OK : IoResult.error(IoStatus.IO_ERROR, why)));
        };
    }

    /** Drops, on every member, the pieces given as (start, length, seq) if their request still holds them. */
    private void prune(List<long[]> pieces) {
        if (pieces.isEmpty() || failure != null) {
            return;
        }
        List<Long> triples = new ArrayList<>();
        for (long[] p : pieces) {
            for (SectorMap.Piece piece : written.overlapping(p[0], p[0] + p[1])) {
                if (piece.seq() == p[2]) {
                    triples.add(piece.start());
                    triples.add(piece.lengthSectors());
                    triples.add(piece.seq());
                }
            }
            written.removeIfSeq(p[0], p[1], p[2]);
        }
        if (triples.isEmpty()) {
            return;
        }
        long[] array = new long[triples.size()];
        for (int i = 0; i < array.length; i++) {
            array[i] = triples.get(i);
        }
        open.prune(name, array);
        recorded(appendedSeq);
    }

    /**
     * A record joined the open batch. The batch goes out when a FLUSH or FUA write waits for it ({@link #whenDurable}),
     * when it reaches half the largest entry, or {@link #BATCH_DELAY_NS} after its first record, whichever comes first:
     * a write without FUA need not be on a quorum before a FLUSH asks, and every entry costs each member a log write
     * and a sync, so the writes between two FLUSHes travel together (measured: docs/BENCHMARKS.md "Replication").
     */
    private void recorded(long seq) {
        openHighestSeq = Math.max(openHighestSeq, seq);
        if (open.sizeBytes() >= ReplicaNode.BATCH_BYTES_MAX / 2) {
            send();
        } else if (!sendQueued) {
            sendQueued = true;
            loop.schedule(BATCH_DELAY_NS, this::sendDue);
        }
    }

    /** The open batch's delay is up: sends whatever is open then. */
    private void sendDue() {
        sendQueued = false;
        send();
    }

    private void send() {
        if (open.count() == 0) {
            return;
        }
        byte[] entry = open.toBytes(term);
        Batch batch = new Batch(Math.max(openHighestSeq, appendedSeq));
        appendedSeq = batch.highestSeq;
        open = new ReplicaRecords();
        batches.add(batch);
        if (failure != null) {
            batch.done = true;
            batch.failure = failure;
            settle();
            return;
        }
        log.append(entry).whenComplete((ignored, error) -> loop.execute(() -> {
            batch.done = true;
            batch.failure = error == null ? null : "replication: " + rootMessage(error);
            settle();
        }));
    }

    private static String rootMessage(Throwable error) {
        Throwable t = error;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t instanceof java.util.concurrent.TimeoutException
                ? "no quorum within " + ReplicaNode.COMMIT_TIMEOUT_MS + " ms" : String.valueOf(t.getMessage());
    }

    /** Batches complete in order: durability advances over the finished prefix; the first failure is sticky. */
    private void settle() {
        while (!batches.isEmpty() && batches.peekFirst().done) {
            Batch batch = batches.pollFirst();
            if (batch.failure != null && failure == null) {
                failure = batch.failure;
            }
            if (failure == null) {
                durableSeq = Math.max(durableSeq, batch.highestSeq);
            }
        }
        while (!waiters.isEmpty() && (failure != null || waiters.peek().seq() <= durableSeq)) {
            waiters.poll().then().accept(failure);
        }
    }

    private void whenDurable(long seq, Consumer<String> then) {
        if (failure != null) {
            then.accept(failure);
        } else if (seq <= durableSeq) {
            then.accept(null);
        } else {
            waiters.add(new Waiter(seq, then));
            if (seq > appendedSeq) {
                send(); // a waiter on a record still open: the open batch goes now, not when its delay is up
            }
        }
    }
}
