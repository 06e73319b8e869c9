package io.blockcache.sim;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.DeviceOp;
import io.blockcache.device.IoResult;
import io.blockcache.loop.EventLoop;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A simulated hard disk (docs/TESTING.md, "Device models") holding real contents.
 *
 * <p><b>Queues.</b> Up to {@link HddConfig#commandQueueDepth()} commands sit in the NCQ; more wait in a FIFO
 * host queue. One mechanism serves media work one operation at a time, always choosing the candidate with
 * the shortest positioning time (seek plus rotational wait from where the head is now; ties go to the
 * oldest): the NCQ's reads and media writes, and the oldest {@link #DESTAGE_CANDIDATES_MAX} dirty entries of
 * the write cache.
 *
 * <p><b>Write cache.</b> When enabled, a non-FUA write reserves cache space (waiting in its NCQ slot while
 * the cache is full), crosses the host link (serially, at the interface rate), completes, and is destaged
 * later; reads see it at once. A FLUSH completes when every write acknowledged before it is on media. A FUA
 * write, and every write with the cache off, completes when it is on media.
 *
 * <p>Not modelled: read caching and read-ahead, per-command overhead, multiple heads, starvation aging.
 * Thread rule: the simulation driver's thread.
 */
public final class HddModel extends AbstractSimDevice {
    /** How many of the oldest dirty cache entries compete for the head: bounds the SPTF scan per dispatch. */
    static final int DESTAGE_CANDIDATES_MAX = 32;

    private final HddConfig config;
    private final HddGeometry geometry;
    private final ArrayDeque<SimRequest> hostQueue = new ArrayDeque<>();
    private final List<SimRequest> mediaQueue = new ArrayList<>();
    private final ArrayDeque<SimRequest> cacheWaiters = new ArrayDeque<>();
    // Dirty cache entries in the order they entered the cache.
    private final Map<Long, PendingWrite> dirty = new LinkedHashMap<>();
    private final ArrayDeque<FlushWait> flushWaits = new ArrayDeque<>();
    private int commandsQueued;
    private long cacheBytesReserved;
    private long interfaceFreeNs;
    private long headTrack;
    private boolean mechanismBusy;

    /** Creates a disk with {@code config} on {@code loop}; it starts empty (all zeroes). */
    public HddModel(EventLoop loop, HddConfig config) {
        super(loop, config.sizeBytes(), BlockDevice.SECTOR_BYTES);
        this.config = config;
        this.geometry = new HddGeometry(config);
    }

    /** The configuration this disk was built with. */
    public HddConfig config() {
        return config;
    }

    /** Sustained sequential rate at {@code offsetBytes} in bytes per second (the zone's rate). */
    public double sustainedBytesPerSecondAt(long offsetBytes) {
        return geometry.sustainedBytesPerSecondAt(offsetBytes / BlockDevice.SECTOR_BYTES);
    }

    /** Pure media transfer time in ns of {@code lengthBytes} at {@code offsetBytes}, head already in place. */
    public long transferNs(long offsetBytes, long lengthBytes) {
        long first = offsetBytes / BlockDevice.SECTOR_BYTES;
        return geometry.transferNs(geometry.angleNs(first), first, lengthBytes / BlockDevice.SECTOR_BYTES);
    }

    /** Bytes of acknowledged writes waiting in the volatile cache. */
    public long dirtyCacheBytes() {
        return media.completedVolatileBytes();
    }

    @Override
    protected void startRead(SimRequest request) {
        enqueue(request);
    }

    @Override
    protected void startWrite(SimRequest request) {
        enqueue(request);
    }

    @Override
    protected void startFlush(SimRequest request) {
        flushWaits.add(new FlushWait(request, media.lastCompletionOrder()));
        after(0, this::completeFlushes);
    }

    @Override
    protected void resetState() {
        hostQueue.clear();
        mediaQueue.clear();
        cacheWaiters.clear();
        dirty.clear();
        flushWaits.clear();
        commandsQueued = 0;
        cacheBytesReserved = 0;
        interfaceFreeNs = 0;
        headTrack = 0;
        mechanismBusy = false;
    }

    private void enqueue(SimRequest request) {
        if (commandsQueued < config.commandQueueDepth()) {
            admit(request);
        } else {
            hostQueue.add(request);
        }
    }

    private void admit(SimRequest request) {
        commandsQueued++;
        boolean cached = request.op == DeviceOp.WRITE && config.writeCacheEnabled() && !request.fua
                && request.lengthBytes <= config.writeCacheBytes();
        if (cached) {
            cacheWaiters.add(request);
            admitCacheWaiters();
        } else {
            mediaQueue.add(request);
            kick();
        }
    }

    /** Moves writes waiting for cache space, in order, across the host link into the cache. */
    private void admitCacheWaiters() {
        while (!cacheWaiters.isEmpty()
                && cacheBytesReserved + cacheWaiters.peek().lengthBytes <= config.writeCacheBytes()) {
            SimRequest request = cacheWaiters.poll();
            cacheBytesReserved += request.lengthBytes;
            long nowNs = loop.nowNs();
            long linkNs = request.lengthBytes * 1_000_000_000L / config.interfaceBytesPerSecond();
            interfaceFreeNs = Math.max(nowNs, interfaceFreeNs) + linkNs;
            after(interfaceFreeNs - nowNs, () -> enteredCache(request));
        }
    }

    private void enteredCache(SimRequest request) {
        media.complete(request.write);
        dirty.put(request.write.sequence, request.write);
        releaseSlot();
        deliver(request, IoResult.OK);
        kick();
    }

    private void releaseSlot() {
        commandsQueued--;
        if (!hostQueue.isEmpty()) {
            admit(hostQueue.poll());
        }
    }

    /** If the head is free, starts the candidate with the shortest positioning time. */
    private void kick() {
        if (mechanismBusy) {
            return;
        }
        long nowNs = loop.nowNs();
        long bestNs = Long.MAX_VALUE;
        SimRequest bestRequest = null;
        PendingWrite bestDestage = null;
        for (SimRequest request : mediaQueue) {
            long p = positioningNs(nowNs, request.offsetBytes);
            if (p < bestNs) {
                bestNs = p;
                bestRequest = request;
            }
        }
        int considered = 0;
        for (Iterator<PendingWrite> it = dirty.values().iterator(); it.hasNext() && considered < DESTAGE_CANDIDATES_MAX;
                considered++) {
            PendingWrite write = it.next();
            long p = positioningNs(nowNs, write.offsetBytes);
            if (p < bestNs) {
                bestNs = p;
                bestRequest = null;
                bestDestage = write;
            }
        }
        if (bestRequest == null && bestDestage == null) {
            return;
        }
        long offsetBytes = bestRequest != null ? bestRequest.offsetBytes : bestDestage.offsetBytes;
        long lengthBytes = bestRequest != null ? bestRequest.lengthBytes : bestDestage.lengthBytes();
        long first = offsetBytes / BlockDevice.SECTOR_BYTES;
        long sectors = lengthBytes / BlockDevice.SECTOR_BYTES;
        long serviceNs = bestNs + geometry.transferNs(nowNs + bestNs, first, sectors);
        long endTrack = geometry.trackOf(first + Math.max(0, sectors - 1));
        mechanismBusy = true;
        if (bestRequest != null) {
            SimRequest request = bestRequest;
            mediaQueue.remove(request);
            after(serviceNs, () -> mediaDone(request, endTrack));
        } else {
            PendingWrite write = bestDestage;
            after(serviceNs, () -> destaged(write, endTrack));
        }
    }

    private long positioningNs(long nowNs, long offsetBytes) {
        long sector = offsetBytes / BlockDevice.SECTOR_BYTES;
        long seekNs = geometry.seekNs(geometry.trackOf(sector) - headTrack);
        return seekNs + geometry.rotationalWaitNs(nowNs + seekNs, sector);
    }

    private void mediaDone(SimRequest request, long endTrack) {
        headTrack = endTrack;
        mechanismBusy = false;
        if (request.op == DeviceOp.READ) {
            media.read(request.offsetBytes, request.buffer);
        } else {
            media.complete(request.write);
            media.makeDurable(request.write);
        }
        releaseSlot();
        deliver(request, IoResult.OK);
        kick();
    }

    private void destaged(PendingWrite write, long endTrack) {
        headTrack = endTrack;
        mechanismBusy = false;
        media.makeDurable(write);
        dirty.remove(write.sequence);
        cacheBytesReserved -= write.lengthBytes();
        admitCacheWaiters();
        completeFlushes();
        kick();
    }

    /** Completes, in order, every flush whose writes are all on media. */
    private void completeFlushes() {
        while (!flushWaits.isEmpty() && media.durableThrough(flushWaits.peek().coversCompletionOrder())) {
            deliver(flushWaits.poll().request(), IoResult.OK);
        }
    }

    /** A flush and the newest completion order it must see on media. */
    private record FlushWait(SimRequest request, long coversCompletionOrder) {
    }
}
