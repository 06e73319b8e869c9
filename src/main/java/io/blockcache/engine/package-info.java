/**
 * The composition root of one cache set: formatting a cache device and its backing devices, opening them
 * (recovery: newest superblock, checkpoint, journal replay), and wiring the journal, the bucket space, the
 * indexes and the {@link io.blockcache.volume.Volume}s together; and {@link io.blockcache.engine.CacheInspector},
 * which walks the same recovery steps read-only and reports instead of failing; and
 * {@link io.blockcache.engine.Salvager}, which plans the salvage of dirty data when those steps refuse (with {@link
 * io.blockcache.engine.SuperblockRebuild} when both superblocks are lost; offline, on the caller's thread, reading
 * through a blocking reader the CLI gives it: the one exception to the thread rule below); and the live knobs, each
 * declared once in {@link io.blockcache.engine.KnobTable} and bound to the
 * volumes and the garbage collector in a {@link io.blockcache.engine.KnobRegistry}. Internal: applications embed
 * the cache through {@code io.blockcache.embed}, which runs a cache set on its own loop thread.
 *
 * <p>Depends on every engine package below it; nothing in the engine depends on it. Thread rule: every call
 * on the cache set's loop thread; results arrive as callbacks there.
 */
package io.blockcache.engine;
