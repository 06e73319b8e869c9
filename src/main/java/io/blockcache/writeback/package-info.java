/**
 * Writeback: dirty scanning, writeback passes in LBA order, clean marking behind a backing
 * flush, rate control, idle detection (early flush) and the selectable policies.
 *
 * <p>Thread rule: owned by one cache's loop thread.
 */
package io.blockcache.writeback;
