package io.blockcache.cli;

import io.blockcache.host.HostException;
import io.blockcache.log.EventName;
import io.blockcache.log.EventSink;
import io.blockcache.log.LogEvent;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Tells the log when writeback of a volume fails ({@link EventName#WRITEBACK_ERROR}): once a second a thread of its
 * own asks the loop for each volume's count of writeback errors and its last one (a copy, then the loop goes on), and
 * logs the last error whenever the count grew. (A backing file that changed under the volume also stops writeback, but
 * counts no error: the device watcher logs that as {@code device.degraded}.) The engine's writeback itself logs
 * nothing: it must not block or read the wall clock, and it retries a failing backing store with a back-off, so at most
 * one line a second per volume comes from here (and the log's flood limit holds even that).
 *
 * <p>Thread rule: {@link #check} from one thread at a time (the watch's own, or a test's).
 */
final class WritebackErrorWatch implements AutoCloseable {
    /** How often the volumes are asked. */
    static final long PERIOD_MS = 1_000;

    /** One volume's writeback errors as the loop saw them. */
    record Errors(String volume, long errorsTotal, String lastError) {
    }

    /** Reads the volumes' errors on the loop. */
    @FunctionalInterface
    interface Source {
        /** @throws HostException once the loop has stopped */
        List<Errors> read() throws HostException;
    }

    private final Source source;
    private final EventSink log;
    /** Per volume, the count of errors when last looked. */
    private final Map<String, Long> seenErrors = new HashMap<>();
    private ScheduledExecutorService thread;

    WritebackErrorWatch(Source source, EventSink log) {
        this.source = source;
        this.log = log;
    }

    /** Starts the periodic checks on a daemon thread; returns this watch. */
    synchronized WritebackErrorWatch start() {
        thread = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread watch = new Thread(task, "blockcache-error-watch");
            watch.setDaemon(true);
            return watch;
        });
        thread.scheduleWithFixedDelay(this::checkQuietly, PERIOD_MS, PERIOD_MS, TimeUnit.MILLISECONDS);
        return this;
    }

    /** Logs the last error of every volume whose count of errors grew since the last look. */
    void check() throws HostException {
        for (Errors errors : source.read()) {
            long before = seenErrors.getOrDefault(errors.volume(), 0L);
            seenErrors.put(errors.volume(), errors.errorsTotal());
            if (errors.errorsTotal() <= before || errors.lastError() == null) {
                continue;
            }
            log.log(LogEvent.of(EventName.WRITEBACK_ERROR, "writeback of \"" + errors.volume() + "\": "
                    + errors.lastError()).with("volume", errors.volume()).with("errors", errors.errorsTotal()));
        }
    }

    private void checkQuietly() {
        try {
            check();
        } catch (HostException e) {
            // The loop is stopping or stopped: serve's own lines say why; the next tick tries again.
        }
    }

    @Override
    public synchronized void close() {
        if (thread != null) {
            thread.shutdownNow();
        }
    }
}
