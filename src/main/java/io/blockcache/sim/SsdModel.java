package io.blockcache.sim;

import io.blockcache.device.BlockDevice;
import io.blockcache.device.DeviceOp;
import io.blockcache.device.IoResult;
import io.blockcache.loop.EventLoop;
import java.util.Arrays;

/**
 * A simulated SSD (docs/TESTING.md, "Device models") holding real contents.
 *
 * <p><b>Timing.</b> Each request takes the channel that frees up first for its latency, and its bytes cross
 * a shared link for its kind (read or write) at the configured ceiling; it completes when both are done.
 * So QD1 sees the per-operation latency, deep queues see {@code channelCount}-fold parallelism, and large
 * requests see the bandwidth ceiling.
 *
 * <p><b>Write cache.</b> A non-FUA write completes into a volatile buffer; when acknowledged-but-volatile
 * bytes exceed {@link SsdConfig#writeCacheBytes()} the oldest are programmed (made durable) at once. A FLUSH
 * takes {@link SsdConfig#flushNs()} and then makes durable every write acknowledged before it was
 * submitted; a FUA write pays the same extra and is durable when it completes.
 *
 * <p>Not modelled: garbage collection, write amplification, read/write interference on a die.
 * Thread rule: the simulation driver's thread.
 */
public final class SsdModel extends AbstractSimDevice {
    private final SsdConfig config;
    private final long[] channelFreeNs;
    private long readLinkFreeNs;
    private long writeLinkFreeNs;

    /** Creates an SSD with {@code config} on {@code loop}; it starts empty (all zeroes). */
    public SsdModel(EventLoop loop, SsdConfig config) {
        super(loop, config.sizeBytes(), BlockDevice.SECTOR_BYTES);
        this.config = config;
        this.channelFreeNs = new long[config.channelCount()];
    }

    @Override
    protected void startRead(SimRequest request) {
        after(serviceNs(request), () -> {
            media.read(request.offsetBytes, request.buffer);
            deliver(request, IoResult.OK);
        });
    }

    @Override
    protected void startWrite(SimRequest request) {
        long delayNs = serviceNs(request) + (request.fua ? config.flushNs() : 0);
        after(delayNs, () -> {
            media.complete(request.write);
            if (request.fua) {
                media.makeDurable(request.write);
            }
            while (media.completedVolatileBytes() > config.writeCacheBytes()) {
                media.makeDurable(media.oldestCompletedVolatile());
            }
            deliver(request, IoResult.OK);
        });
    }

    @Override
    protected void startFlush(SimRequest request) {
        long covers = media.lastCompletionOrder();
        after(config.flushNs(), () -> {
            media.makeDurableThrough(covers);
            deliver(request, IoResult.OK);
        });
    }

    @Override
    protected void resetState() {
        Arrays.fill(channelFreeNs, 0);
        readLinkFreeNs = 0;
        writeLinkFreeNs = 0;
    }

    /** Books a channel and the link for {@code request}; returns the delay until it is done. */
    private long serviceNs(SimRequest request) {
        long nowNs = loop.nowNs();
        int channel = 0;
        for (int c = 1; c < channelFreeNs.length; c++) {
            if (channelFreeNs[c] < channelFreeNs[channel]) {
                channel = c;
            }
        }
        boolean read = request.op == DeviceOp.READ;
        long startNs = Math.max(nowNs, channelFreeNs[channel]);
        long opEndNs = startNs + (read ? config.readLatencyNs() : config.writeLatencyNs());
        long rate = read ? config.readBytesPerSecond() : config.writeBytesPerSecond();
        long linkStartNs = Math.max(startNs, read ? readLinkFreeNs : writeLinkFreeNs);
        long linkEndNs = linkStartNs + request.lengthBytes * 1_000_000_000L / rate;
        if (read) {
            readLinkFreeNs = linkEndNs;
        } else {
            writeLinkFreeNs = linkEndNs;
        }
        long doneNs = Math.max(opEndNs, linkEndNs);
        channelFreeNs[channel] = doneNs;
        return doneNs - nowNs;
    }
}
