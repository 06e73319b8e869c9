/**
 * The extent index: backing range to cache location, dirty bit, generation and checksum; overlap
 * splitting; ordered scans from a cursor.
 *
 * <p>Depends on nothing above {@code loop}. Thread rule: owned by one cache's loop thread.
 */
package io.blockcache.index;
