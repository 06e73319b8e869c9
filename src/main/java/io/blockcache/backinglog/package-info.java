/**
 * Journaled write-back's log on the backing device (docs/WRITEBACK.md, "Journaled write-back"; docs/FORMAT.md §4.4):
 * {@link io.blockcache.backinglog.LogGroupWriter} writes a group of whole flush epochs sequentially into the log
 * region and commits it; {@link io.blockcache.backinglog.LogReplay} puts a committed group in place and retires it
 * (at open, and after the cache device was lost). With a group committed before any of it goes in place, and
 * retired only once all of it is in place and flushed, the backing device alone always holds the volume as of some
 * completed FLUSH, once replayed.
 *
 * <p>Depends on {@code loop}, {@code device} and {@code format} only. Thread rule: every call on the owning loop of
 * the device; results arrive as callbacks there.
 */
package io.blockcache.backinglog;
