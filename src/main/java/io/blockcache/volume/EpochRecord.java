package io.blockcache.volume;

import io.blockcache.journal.MetadataJournal;
import java.util.function.Consumer;

/**
 * What the journal and the checkpoints may say about one volume's epochs, against the order the volume follows in
 * memory (docs/WRITEBACK.md "Epoch ordering", docs/FORMAT.md §7 rule 15).
 *
 * <p>The rule it keeps: <b>the order a recovery would restore is never finer than the order the backing device was
 * given.</b> A recovery restores the recorded epochs (type 7 records, type 3 checkpoint runs) when every dirty sector
 * has one, and then treats the backing device as a prefix of them. So when the volume's order in memory becomes
 * coarser than what is on record — ordering switched off, recovered epochs dropped because the volume changed
 * without ordering, recovered data put in {@link DirtyEpochs#ORDER_UNKNOWN} — an {@code EpochsVoid} record (type 8)
 * is appended and committed at once, and nothing may reach the backing device in the coarser order (no writeback
 * pass, no write around the cache) until it is durable ({@link #pending}). Found by the fuzz (seeds 40725, 41231,
 * 51661): a live switch to {@code none} was not durable, writeback then wrote back out of order, and after a power cut
 * recovery restored the epochs of the records written before the switch although the backing device no longer was a
 * prefix of them.
 *
 * <p>If the record cannot be made durable (the journal failed: it refuses every later commit) the volume stays held
 * for good ({@link #failure}); a restart recovers the old epochs, which the backing device still follows. A torn
 * write of the record is the same failure, or, after a power cut, a journal ending before it: the epochs it would have
 * voided are restored, and nothing broke their order.
 *
 * <p>Cost: nothing for a volume that never recorded an epoch; one 3-byte record and one journal commit per switch
 * otherwise. Thread rule: the loop thread.
 */
final class EpochRecord {
    private final int volumeId;
    private final MetadataJournal journal;
    /** Epochs of this volume may be on record (journal or checkpoint) that no void record after them covers. */
    private boolean onRecord;
    /** Void records appended and not yet durable. */
    private int voidsInFlight;
    private String failure;
    /** Told (on the loop, from the journal's callback) when a void became durable (null) or failed (the reason). */
    private Consumer<String> settled = failed -> { };

    EpochRecord(int volumeId, MetadataJournal journal) {
        this.volumeId = volumeId;
        this.journal = journal;
    }

    /** Sets who hears that a void record became durable or failed (the volume: its gate and its writeback). */
    void onSettled(Consumer<String> listener) {
        settled = listener;
    }

    /** Epochs were put on record: a type 7 record appended, or recovery restored recorded epochs. */
    void recorded() {
        onRecord = true;
    }

    /**
     * The order in memory became coarser than the recorded one: voids the record, if it holds anything, with a record
     * committed now. Until that is durable, {@link #pending} holds whatever could reach the backing device.
     */
    void coarsened() {
        if (!onRecord) {
            return;
        }
        onRecord = false;
        voidsInFlight++;
        journal.appendEpochsVoid(volumeId);
        journal.commit(result -> {
            voidsInFlight--;
            if (!result.ok() && failure == null) {
                failure = "the journal could not record that the epochs of volume " + volumeId
                        + " no longer hold: " + result.message();
            }
            settled.accept(result.ok() ? null : failure);
        });
    }

    /**
     * True while nothing may reach the backing device in an order other than the recorded one: a void record is not
     * durable yet, or could not be made durable.
     */
    boolean pending() {
        return voidsInFlight > 0 || failure != null;
    }

    /** Why a void record could not be made durable, or null. */
    String failure() {
        return failure;
    }
}
