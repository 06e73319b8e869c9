/**
 * The journal: group commit of index updates into a ring of buckets, replay at start-up,
 * checkpoints written in slices, and journal reclaim.
 *
 * <p>Thread rule: owned by one cache's loop thread.
 */
package io.blockcache.journal;
