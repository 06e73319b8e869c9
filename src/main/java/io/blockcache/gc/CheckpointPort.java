package io.blockcache.gc;

import io.blockcache.device.IoCallback;
import io.blockcache.journal.CheckpointWriter;

/**
 * What GC needs of checkpoints: the generation guard may raise its bound only once a checkpoint that started
 * after a complete mark is durable (older checkpoints may still hold the keys the mark dropped).
 *
 * <p>Thread rule: the cache's loop thread.
 */
public interface CheckpointPort {
    /** Checkpoints made durable since open. */
    long checkpointsWritten();

    /** True while a checkpoint is being written (it started earlier and may not reflect newer changes). */
    boolean running();

    /** Starts a checkpoint or joins the running one; {@code done} when durable or failed. */
    void start(IoCallback done);

    /** Adapts the journal's checkpoint writer. */
    static CheckpointPort of(CheckpointWriter writer) {
        return new CheckpointPort() {
            @Override
            public long checkpointsWritten() {
                return writer.checkpointsWritten();
            }

            @Override
            public boolean running() {
                return writer.running();
            }

            @Override
            public void start(IoCallback done) {
                writer.start(done);
            }
        };
    }
}
