package io.blockcache.journal;

/**
 * Where the allocator records generation bumps: the journal. The returned sequence is the journal entry
 * that will hold the record; the bucket may be reused once that entry is durable.
 *
 * <p>Thread rule: the cache's loop thread.
 */
@FunctionalInterface
public interface GenerationJournal {
    /** Appends a "bucket now has this generation" record and returns the sequence of its journal entry. */
    long recordGeneration(int bucket, int generation);
}
