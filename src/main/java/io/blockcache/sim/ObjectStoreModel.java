package io.blockcache.sim;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.IoResult;
import io.blockcache.loop.EventLoop;
import io.blockcache.loop.Prng;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A simulated object store holding a volume as fixed-size chunk objects (docs/TESTING.md, "Device models"), the way
 * the real S3 backing stores it: writes are staged in memory per chunk; a chunk is uploaded with one PUT of the
 * whole object, at once when its staged writes cover all of it, and otherwise (when a FLUSH or a FUA write needs it,
 * or to make room) after a GET of the old object to fill the rest. Uploads of one chunk run one at a time; many
 * chunks upload at once. Request timing is {@link StoreRequests}'.
 *
 * <p><b>Durability.</b> A PUT's success is its durability: a write is durable once every chunk it touches was
 * uploaded with it (a PUT carries what was staged in the chunk when the PUT started). A non-FUA write completes
 * when it is staged; a FUA write when its chunks' uploads that include it have succeeded; a FLUSH when every chunk
 * holding a write completed before it has been uploaded. At a power cut staged and half-uploaded writes are not
 * durable, and meet the fates every simulated device gives such writes ({@link SimDevice#crash}): a superset of
 * what a real store does (where a chunk's PUT is all or nothing).
 *
 * <p><b>Staging.</b> At most {@link ObjectStoreConfig#stagingChunksMax()} chunks are staged (or uploading); a write
 * that needs more waits, in order, while the oldest staged chunks are uploaded. A write touching more chunks than
 * that is let in alone into an empty staging area rather than never.
 *
 * <p>Reads cost one (ranged) GET per chunk touched, whatever is staged. Discard is accepted and ignored, as on every
 * simulated device. Not modelled: throttling (HTTP 503), failed requests and their retries, request costs in money.
 * Thread rule: the simulation driver's thread.
 */
public final class ObjectStoreModel extends AbstractSimDevice {
    private final ObjectStoreConfig config;
    private final int sectorsPerChunk;
    private final StoreRequests requests;
    // Staged chunks by index, in the order they were first staged (the oldest is uploaded first to make room).
    private final Map<Long, Chunk> staging = new LinkedHashMap<>();
    // Writes waiting for staging room, in submission order: bounded by the writes the caller has in flight.
    private final ArrayDeque<SimRequest> stagingWaiters = new ArrayDeque<>();

    /** Creates an empty store (every chunk missing: reads as zeroes) with {@code config} on {@code loop}. */
    public ObjectStoreModel(EventLoop loop, ObjectStoreConfig config, Prng latency) {
        super(loop, config.sizeBytes(), BlockDevice.SECTOR_BYTES);
        this.config = config;
        this.sectorsPerChunk = config.chunkBytes() / BlockDevice.SECTOR_BYTES;
        this.requests = new StoreRequests(config, new StoreRequests.Scheduler() {
            @Override
            public long nowNs() {
                return loop().nowNs();
            }

            @Override
            public void after(long delayNs, Runnable action) {
                ObjectStoreModel.this.after(delayNs, action);
            }
        }, latency);
    }

    /** One chunk object: its size. */
    @Override
    public int writeUnitBytes() {
        return config.chunkBytes();
    }

    /** The configuration this store was built with. */
    public ObjectStoreConfig config() {
        return config;
    }

    /** PUT requests issued since the store was built. */
    public long puts() {
        return requests.puts();
    }

    /** GET requests issued since the store was built (reads and the fills of partly written chunks). */
    public long gets() {
        return requests.gets();
    }

    /** Bytes sent by PUTs. */
    public long putBytes() {
        return requests.putBytes();
    }

    /** Bytes of PUTs that have succeeded (stored). */
    public long storedBytes() {
        return requests.storedBytes();
    }

    /** Bytes received by GETs. */
    public long getBytes() {
        return requests.getBytes();
    }

    /** Chunks staged or uploading now. */
    public int stagedChunks() {
        return staging.size();
    }

    private EventLoop loop() {
        return loop;
    }

    @Override
    protected void startRead(SimRequest request) {
        Waiter waiter = new Waiter(() -> {
            media.read(request.offsetBytes, request.buffer);
            deliver(request, IoResult.OK);
        });
        long offset = request.offsetBytes;
        long end = request.offsetBytes + request.lengthBytes;
        while (offset < end) {
            long chunkEnd = (offset / config.chunkBytes() + 1) * config.chunkBytes();
            long bytes = Math.min(end, chunkEnd) - offset;
            waiter.pending++;
            requests.get(bytes, waiter::arrive);
            offset += bytes;
        }
        waiter.armed(this);
    }

    @Override
    protected void startWrite(SimRequest request) {
        stagingWaiters.add(request);
        admitWrites();
    }

    @Override
    protected void startFlush(SimRequest request) {
        Waiter waiter = new Waiter(() -> deliver(request, IoResult.OK));
        // Only writes already acknowledged count: a FUA write still waiting for its PUT is not covered by the flush.
        for (Chunk chunk : staging.values()) {
            if (chunk.nextAcknowledged) {
                waiter.pending++;
                chunk.nextWaiters.add(waiter);
                if (!chunk.uploading) {
                    upload(chunk);
                }
            } else if (chunk.putInFlight && chunk.currentAcknowledged) {
                waiter.pending++;
                chunk.currentWaiters.add(waiter);
            }
        }
        waiter.armed(this);
    }

    @Override
    protected void resetState() {
        staging.clear();
        stagingWaiters.clear();
        requests.reset();
    }

    /** Stages waiting writes in order while there is room; else uploads the oldest staged chunks to make some. */
    private void admitWrites() {
        while (!stagingWaiters.isEmpty()) {
            SimRequest next = stagingWaiters.peek();
            int needed = newChunks(next);
            if (!staging.isEmpty() && staging.size() + needed > config.stagingChunksMax()) {
                makeRoom(needed);
                return;
            }
            stage(stagingWaiters.poll());
        }
    }

    private int newChunks(SimRequest request) {
        int needed = 0;
        for (long c = firstChunk(request); c <= lastChunk(request); c++) {
            needed += staging.containsKey(c) ? 0 : 1;
        }
        return needed;
    }

    /** Uploads the oldest staged chunks until {@code needed} are uploading (each frees its place when done). */
    private void makeRoom(int needed) {
        int uploading = 0;
        for (Chunk chunk : staging.values()) {
            uploading += chunk.uploading ? 1 : 0;
        }
        for (Chunk chunk : staging.values()) {
            if (uploading >= needed) {
                return;
            }
            if (!chunk.uploading && !chunk.writes.isEmpty()) {
                upload(chunk);
                uploading++;
            }
        }
    }

    private void stage(SimRequest request) {
        PendingWrite write = request.write;
        media.complete(write);
        if (request.lengthBytes == 0) {
            media.makeDurable(write);
            after(0, () -> deliver(request, IoResult.OK));
            return;
        }
        Waiter fua = request.fua ? new Waiter(() -> deliver(request, IoResult.OK)) : null;
        write.unitsPending = (int) (lastChunk(request) - firstChunk(request) + 1);
        long firstSector = request.offsetBytes / BlockDevice.SECTOR_BYTES;
        long endSector = firstSector + request.lengthBytes / BlockDevice.SECTOR_BYTES;
        for (long c = firstChunk(request); c <= lastChunk(request); c++) {
            Chunk chunk = staging.computeIfAbsent(c, Chunk::new);
            chunk.writes.add(write);
            chunk.nextAcknowledged |= fua == null;
            long chunkFirstSector = c * sectorsPerChunk;
            chunk.covered.set((int) (Math.max(firstSector, chunkFirstSector) - chunkFirstSector),
                    (int) (Math.min(endSector, chunkFirstSector + sectorsPerChunk) - chunkFirstSector));
            if (fua != null) {
                fua.pending++;
                chunk.nextWaiters.add(fua);
            }
            if (!chunk.uploading && (fua != null || chunk.whole(sectorsPerChunk))) {
                upload(chunk);
            }
        }
        if (fua == null) {
            after(0, () -> deliver(request, IoResult.OK));
        }
    }

    /** Starts an upload: a PUT at once if the staged writes cover the chunk, else a GET of the old object first. */
    private void upload(Chunk chunk) {
        chunk.uploading = true;
        if (chunk.whole(sectorsPerChunk)) {
            put(chunk);
        } else {
            requests.get(config.chunkBytes(), () -> put(chunk));
        }
    }

    /** The PUT carries everything staged in the chunk now; later writes wait for the next upload. */
    private void put(Chunk chunk) {
        List<PendingWrite> carried = chunk.writes;
        chunk.writes = new ArrayList<>();
        chunk.covered.clear();
        chunk.currentWaiters = chunk.nextWaiters;
        chunk.nextWaiters = new ArrayList<>();
        chunk.currentAcknowledged = chunk.nextAcknowledged;
        chunk.nextAcknowledged = false;
        chunk.putInFlight = true;
        requests.put(config.chunkBytes(), () -> stored(chunk, carried));
    }

    private void stored(Chunk chunk, List<PendingWrite> carried) {
        for (PendingWrite write : carried) {
            if (--write.unitsPending == 0) {
                media.makeDurable(write);
            }
        }
        chunk.uploading = false;
        chunk.putInFlight = false;
        chunk.currentAcknowledged = false;
        List<Waiter> done = chunk.currentWaiters;
        chunk.currentWaiters = new ArrayList<>();
        if (!chunk.nextWaiters.isEmpty() || (!chunk.writes.isEmpty() && chunk.whole(sectorsPerChunk))) {
            upload(chunk);
        } else if (chunk.writes.isEmpty()) {
            staging.remove(chunk.index);
        }
        for (Waiter waiter : done) {
            waiter.arrive();
        }
        admitWrites();
    }

    private long firstChunk(SimRequest request) {
        return request.offsetBytes / config.chunkBytes();
    }

    private long lastChunk(SimRequest request) {
        return (request.offsetBytes + Math.max(1, request.lengthBytes) - 1) / config.chunkBytes();
    }

    /** One chunk object's staging state. */
    private static final class Chunk {
        final long index;
        // Completed writes not yet carried by a PUT.
        List<PendingWrite> writes = new ArrayList<>();
        // Sectors of the chunk those writes cover: all of them = no GET needed.
        final BitSet covered = new BitSet();
        boolean uploading;
        // The upload's PUT (not its GET) is in flight: its carried writes and waiters are the current ones.
        boolean putInFlight;
        // Whether the next PUT / the PUT in flight carries a write already acknowledged (not FUA): flushes wait for it.
        boolean nextAcknowledged;
        boolean currentAcknowledged;
        // Waiting for the next PUT (its writes are not in the one in flight) / for the PUT in flight.
        List<Waiter> nextWaiters = new ArrayList<>();
        List<Waiter> currentWaiters = new ArrayList<>();

        Chunk(long index) {
            this.index = index;
        }

        boolean whole(int sectorsPerChunk) {
            return covered.cardinality() == sectorsPerChunk;
        }
    }

    /** A request that completes once {@code pending} parts have arrived (chunk uploads, ranged GETs). */
    private static final class Waiter {
        private final Runnable done;
        int pending;

        Waiter(Runnable done) {
            this.done = done;
        }

        void arrive() {
            if (--pending == 0) {
                done.run();
            }
        }

        /** Called once every part is counted: completes now (from a loop event) if none was needed. */
        void armed(ObjectStoreModel device) {
            if (pending == 0) {
                device.after(0, done);
            }
        }
    }
}
