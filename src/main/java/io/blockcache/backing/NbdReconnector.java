package io.blockcache.backing;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The thread that brings an {@link NbdDevice} back after its server went away: it waits for a break, then tries
 * to connect every {@link #BACKOFF_MS_MIN} ms, doubling to {@link #BACKOFF_MS_MAX}; on success it replays the
 * unflushed writes on the first new connection and hands the connections to the device, which then sends the
 * flushes that waited. Forever, until the device closes: a backing store that comes back after an hour is
 * still wanted (the cache holds its dirty data meanwhile).
 *
 * <p>While connected it also checks, a few times per request timeout, whether a request has waited too long
 * ({@link NbdDevice#checkTimeouts}).
 *
 * <p>Thread rule: its own platform thread; {@link #wake} and {@link #stop} from any thread.
 */
final class NbdReconnector {
    /** First retry delay: a restarting server is usually back within a second. */
    static final long BACKOFF_MS_MIN = 100;
    /** Longest retry delay: a server back after an outage is found within this. */
    static final long BACKOFF_MS_MAX = 5_000;

    private final NbdDevice device;
    private final Thread thread;
    private boolean stopped; // guarded by this
    private boolean woken; // guarded by this

    NbdReconnector(NbdDevice device) {
        this.device = device;
        this.thread = Thread.ofPlatform().daemon().name("nbd-reconnect " + device.uri()).unstarted(this::run);
    }

    void start() {
        thread.start();
    }

    /** A connection broke: start trying. */
    synchronized void wake() {
        woken = true;
        notifyAll();
    }

    /** Ends the thread soon (it does not wait for an attempt in progress). */
    synchronized void stop() {
        stopped = true;
        notifyAll();
    }

    private void run() {
        long backoffMs = BACKOFF_MS_MIN;
        while (true) {
            synchronized (this) {
                while (!stopped && !woken && !device.away()) {
                    // Between breaks this thread also watches for requests the server sits on (the request
                    // timeout); a request that times out breaks the connection, and the loop goes on to reconnect.
                    if (!pause(device.timeoutCheckMs())) {
                        return;
                    }
                    device.checkTimeouts();
                }
                if (stopped) {
                    return;
                }
                woken = false;
            }
            if (!device.away()) {
                continue;
            }
            try {
                attempt();
                backoffMs = BACKOFF_MS_MIN;
            } catch (IOException e) {
                device.attemptFailed(e.getMessage());
                synchronized (this) {
                    if (stopped || !pause(backoffMs)) {
                        return;
                    }
                }
                backoffMs = Math.min(BACKOFF_MS_MAX, backoffMs * 2);
            }
        }
    }

    /** One try: connect all, replay on the first, install. */
    private void attempt() throws IOException {
        List<NbdConnection> fresh = new ArrayList<>(device.openMore(0));
        try {
            NbdConnection first = fresh.get(0);
            first.start();
            device.replay(first);
        } catch (IOException | RuntimeException e) {
            fresh.forEach(NbdConnection::abort);
            throw e;
        }
        if (!device.install(fresh)) {
            throw new IOException(device.uri() + ": a new connection broke before it was used");
        }
    }

    /** Waits on the monitor (0 = until notified); false if interrupted, which only a dying JVM does. */
    private boolean pause(long ms) {
        try {
            wait(ms);
            return true;
        } catch (InterruptedException e) {
            return false;
        }
    }
}
