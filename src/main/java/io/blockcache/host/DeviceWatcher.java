package io.blockcache.host;

import io.blockcache.device.FileDevice;
import io.blockcache.engine.CacheSet;
import io.blockcache.log.EventName;
import io.blockcache.log.EventSink;
import io.blockcache.log.LogEvent;
import io.blockcache.loop.RealLoop;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Watches the files under a {@link CacheHost} for a change while open — deleted, replaced by another file, moved
 * away, truncated ({@link FileDevice#checkPresence}) — every {@link #PERIOD_MS} on a thread of its own, and reports
 * each change once: one line in the log, and the engine told on its loop. A changed backing file holds its volume's
 * writeback until a restart ({@code Writeback.backingChanged}; the device itself was told to refuse writes and
 * flushes, {@link FileDevice#fenceWhenChanged}); a changed cache file shows in stats, and the host refuses to call
 * the shutdown clean ({@link CacheHost#shutdown}); a changed damage-map file is logged.
 *
 * <p>Thread rule: its own thread; {@link #checkNow} and {@link #close} from any thread but the loop's.
 */
final class DeviceWatcher implements AutoCloseable {
    /**
     * How often every file is checked: a few {@code stat} calls each, microseconds. The period bounds how long
     * writeback may write into a deleted backing file before it stops (a drain checks again before it reports clean).
     */
    static final long PERIOD_MS = 1_000;

    /** What a file is to the cache. */
    enum Role { CACHE, BACKING, DAMAGE_MAP }

    /** One watched file: its role, its export name (null for the cache file) and its device. */
    record Watched(Role role, String export, FileDevice device) {
    }

    private final RealLoop loop;
    private final CacheSet set;
    private final EventSink log;
    private final List<Watched> watched;
    private final boolean[] reported;
    private final ScheduledExecutorService thread;

    DeviceWatcher(RealLoop loop, String threadName, CacheSet set, List<Watched> watched, EventSink log) {
        this.loop = loop;
        this.set = set;
        this.log = log;
        this.watched = List.copyOf(watched);
        this.reported = new boolean[watched.size()];
        this.thread = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread watcher = new Thread(task, threadName);
            watcher.setDaemon(true);
            return watcher;
        });
    }

    /** Starts the periodic checks. */
    void start() {
        thread.scheduleWithFixedDelay(this::checkNow, PERIOD_MS, PERIOD_MS, TimeUnit.MILLISECONDS);
    }

    /**
     * Checks every file now and reports each change not reported before; blocks in a few system calls. The
     * engine hears of it in a loop task queued before this returns, so a task queued afterwards sees it.
     *
     * @return every change found so far, one line each, the role first
     */
    synchronized List<String> checkNow() {
        List<String> changes = new ArrayList<>();
        for (int i = 0; i < watched.size(); i++) {
            Watched file = watched.get(i);
            String lockProblem = file.device().keepLock();
            if (lockProblem != null) {
                log.log(EventName.DEVICE_LOCK_LOST, lockProblem);
            }
            String change = file.device().checkPresence();
            if (change == null) {
                continue;
            }
            String line = describe(file, change);
            changes.add(line);
            if (!reported[i]) {
                reported[i] = true;
                LogEvent event = LogEvent.of(EventName.DEVICE_DEGRADED, line)
                        .with("role", file.role().name().toLowerCase(java.util.Locale.ROOT));
                log.log(file.export() == null ? event : event.with("volume", file.export()));
                tellEngine(file, change);
            }
        }
        return changes;
    }

    private void tellEngine(Watched file, String change) {
        if (file.role() != Role.BACKING) {
            return; // the cache file's change is read from its device by stats and the shutdown
        }
        try {
            loop.execute(() -> set.writeback(file.export()).backingChanged(change));
        } catch (IllegalStateException stopped) {
            // The loop has stopped: nothing writes back any more, and the device refuses writes already.
        }
    }

    /** The log line for a change: which file it is to the cache, what happened, what it means, what to do. */
    static String describe(Watched file, String change) {
        return switch (file.role()) {
            case BACKING -> "backing " + change + ": writeback of export \"" + file.export() + "\" stops and its"
                    + " dirty data is kept in the cache; restore the file (or its replacement) at that path and"
                    + " restart";
            case CACHE -> "cache " + change + ": the cache's data now lives only in this process; drain every volume"
                    + " (blockcache drain) before stopping, or its dirty data is lost at the stop";
            case DAMAGE_MAP -> "damage map " + change + ": the map of export \"" + file.export() + "\" is no longer"
                    + " kept on disk; a restart writes it again";
        };
    }

    /** Stops the periodic checks; waits for one in progress. */
    @Override
    public void close() {
        thread.shutdownNow();
        try {
            thread.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
