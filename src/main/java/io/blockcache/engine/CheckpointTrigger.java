package io.blockcache.engine;

import io.blockcache.journal.CheckpointWriter;
import io.blockcache.journal.JournalWriter;
import io.blockcache.loop.EventLoop;
import java.util.concurrent.TimeUnit;

/**
 * Starts a checkpoint when the journal ring fills up (the journal's pressure listener). A checkpoint that
 * fails while commits are waiting for ring space is retried after {@link #RETRY_DELAY_NS}, so a passing
 * shortage (no free bucket for a moment) cannot stall the journal for good.
 */
final class CheckpointTrigger implements Runnable {
    /** One second: long enough not to spin on a persistent error, short enough for waiting flushes. */
    static final long RETRY_DELAY_NS = TimeUnit.SECONDS.toNanos(1);

    private final EventLoop loop;
    private final JournalWriter journal;
    private final CheckpointWriter checkpoints;
    private boolean retryScheduled;
    private long failures;

    CheckpointTrigger(EventLoop loop, JournalWriter journal, CheckpointWriter checkpoints) {
        this.loop = loop;
        this.journal = journal;
        this.checkpoints = checkpoints;
    }

    @Override
    public void run() {
        if (checkpoints.running() || journal.failed()) {
            return;
        }
        checkpoints.start(result -> {
            if (result.ok()) {
                return;
            }
            failures++;
            if (journal.waitingForRing() && !retryScheduled) {
                retryScheduled = true;
                loop.schedule(RETRY_DELAY_NS, () -> {
                    retryScheduled = false;
                    run();
                });
            }
        });
    }

    /** Checkpoints started by pressure that failed. */
    long failures() {
        return failures;
    }
}
