package io.blockcache.bench;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * Every JVM garbage-collection pause of this process while it listens, from the collectors' MXBean
 * notifications (start and duration in ms of JVM uptime), so an experiment can report the longest pause inside
 * its measuring window. Concurrent cycles are not pauses and are left out: ZGC's "... Cycles" beans and G1's
 * "G1 Concurrent GC" report whole concurrent cycles; ZGC's "... Pauses" beans report its stop-the-world pauses.
 *
 * <p>Thread rule: notifications arrive on a JMX thread; the methods are synchronized.
 */
final class JvmPauseLog implements AutoCloseable {
    private final List<long[]> pauses = new ArrayList<>(); // {startMs, durationMs}
    private final List<NotificationEmitter> emitters = new ArrayList<>();
    private final NotificationListener listener = (notification, handback) -> {
        if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(notification.getType())) {
            return;
        }
        GarbageCollectionNotificationInfo info =
                GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData());
        if (isPause(info.getGcName())) {
            add(info.getGcInfo().getStartTime(), info.getGcInfo().getDuration());
        }
    };

    /** Starts listening to every collector of this JVM. */
    JvmPauseLog() {
        for (GarbageCollectorMXBean bean : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (bean instanceof NotificationEmitter emitter) {
                emitter.addNotificationListener(listener, null, null);
                emitters.add(emitter);
            }
        }
    }

    static boolean isPause(String collectorName) {
        return !collectorName.contains("Cycles") && !collectorName.contains("Concurrent");
    }

    /** The collector names of this JVM, for the report. */
    static String collectors() {
        return String.join(", ", ManagementFactory.getGarbageCollectorMXBeans().stream()
                .map(GarbageCollectorMXBean::getName).toList());
    }

    /** Now, in ms of JVM uptime (the notifications' clock). */
    static long uptimeMs() {
        return ManagementFactory.getRuntimeMXBean().getUptime();
    }

    private synchronized void add(long startMs, long durationMs) {
        pauses.add(new long[] {startMs, durationMs});
    }

    /** The longest pause that overlaps {@code [fromMs, toMs]} of JVM uptime, ms (0 if none). */
    synchronized long pauseMsMax(long fromMs, long toMs) {
        long max = 0;
        for (long[] pause : pauses) {
            if (pause[0] <= toMs && pause[0] + pause[1] >= fromMs) {
                max = Math.max(max, pause[1]);
            }
        }
        return max;
    }

    /** Pauses that overlap {@code [fromMs, toMs]}. */
    synchronized int pauseCount(long fromMs, long toMs) {
        int count = 0;
        for (long[] pause : pauses) {
            if (pause[0] <= toMs && pause[0] + pause[1] >= fromMs) {
                count++;
            }
        }
        return count;
    }

    @Override
    public void close() {
        for (NotificationEmitter emitter : emitters) {
            try {
                emitter.removeNotificationListener(listener);
            } catch (javax.management.ListenerNotFoundException e) {
                throw new IllegalStateException("JVM pause listener vanished", e);
            }
        }
    }
}
