package io.blockcache.engine;

import io.blockcache.format.CheckpointItem;
import io.blockcache.journal.CheckpointCursor;
import io.blockcache.journal.JournalRecovery;
import io.blockcache.loop.EventLoop;
import java.util.List;

/**
 * Decodes a checkpoint's chunks one ahead of the replay, away from the loop thread ({@link EventLoop#offLoop}), so
 * that the loop only applies what is decoded. Why: decoding a 256 KiB chunk, a slice of its own on the loop, took
 * 4–9 ms of loop time in {@code bench recovery} where a replay slice takes about 1 (docs/bench-history/recovery.md
 * "Recovery on a machine with no steal"); {@link CheckpointCursor} is pure, so another thread can do it while the loop
 * applies the chunk before. Where the decode runs inline (a simulated loop), its result is there at once, as before.
 *
 * <p>The first chunk is decoded on the loop ({@link #takeFirst}), every later one ahead of it. At most one chunk is
 * decoded ahead. The cursor is used by one thread at a time: each decode starts only after
 * the loop took the one before, and hands its result over with {@link EventLoop#execute}.
 *
 * <p>Thread rule: the loop thread, except the decode itself.
 */
final class ChunkPrefetch {
    private final EventLoop loop;
    private final CheckpointCursor cursor;
    /** A decode is running: {@link #next} and {@link #failure} are not known yet. */
    private boolean decoding;
    private List<CheckpointItem> next;
    private Throwable failure;
    private Runnable waiter;
    private boolean started;

    ChunkPrefetch(EventLoop loop, CheckpointCursor cursor) {
        this.loop = loop;
        this.cursor = cursor;
    }

    /** True once {@link #takeFirst} was called. */
    boolean started() {
        return started;
    }

    /**
     * The first chunk's items (null if the checkpoint has none and matched its record), decoded here, on the loop,
     * as a replay slice of its own; starts decoding the next one off the loop. Why the first on the loop: the
     * replay's first checkpoint slice then is that decode, and the second applies extents, as before this class
     * (the admin API's answer between them shows progress, {@code admin.RecoveryAdminTest}).
     *
     * @throws JournalRecovery.CorruptJournalException as {@link CheckpointCursor#nextChunk}
     */
    List<CheckpointItem> takeFirst() throws JournalRecovery.CorruptJournalException {
        if (started) {
            throw new IllegalStateException("the first checkpoint chunk was taken already");
        }
        started = true;
        List<CheckpointItem> items = cursor.nextChunk();
        if (items != null) {
            decodeAhead();
        }
        return items;
    }

    private void decodeAhead() {
        decoding = true;
        loop.offLoop(() -> {
            List<CheckpointItem> items = null;
            Throwable error = null;
            try {
                items = cursor.nextChunk();
            } catch (JournalRecovery.CorruptJournalException | RuntimeException | Error e) {
                error = e;
            }
            if (loop.inLoop()) { // inline (a simulated loop): known at once, as when the loop decoded it itself
                decoded(items, error);
                return;
            }
            List<CheckpointItem> decoded = items;
            Throwable failed = error;
            try {
                loop.execute(() -> decoded(decoded, failed));
            } catch (IllegalStateException closed) {
                // the loop was shut down (the open failed or the process stops): nothing waits for the chunk
            }
        });
    }

    private void decoded(List<CheckpointItem> items, Throwable error) {
        decoding = false;
        next = items;
        failure = error;
        Runnable task = waiter;
        waiter = null;
        if (task != null) {
            task.run();
        }
    }

    /** True once the next chunk, the end of the checkpoint or a failure is known (after {@link #takeFirst}). */
    boolean ready() {
        return started && !decoding;
    }

    /** Runs {@code task} on the loop once {@link #ready()}: at once if it is. One waiter at a time. */
    void whenReady(Runnable task) {
        if (!decoding) {
            task.run();
            return;
        }
        if (waiter != null) {
            throw new IllegalStateException("a replay slice already waits for the next checkpoint chunk");
        }
        waiter = task;
    }

    /**
     * The next chunk's items, or null once every chunk was read and the checkpoint matched its record; starts
     * decoding the chunk after it. Call only when {@link #ready()}.
     *
     * @throws JournalRecovery.CorruptJournalException as {@link CheckpointCursor#nextChunk}
     */
    List<CheckpointItem> take() throws JournalRecovery.CorruptJournalException {
        if (!started || decoding) {
            throw new IllegalStateException("checkpoint chunk taken before it was decoded");
        }
        switch (failure) {
            case null -> { }
            case JournalRecovery.CorruptJournalException e -> throw e;
            case RuntimeException e -> throw e;
            case Error e -> throw e;
            default -> throw new IllegalStateException("checkpoint chunk decode failed", failure);
        }
        List<CheckpointItem> items = next;
        next = null;
        if (items != null) {
            decodeAhead();
        }
        return items;
    }
}
