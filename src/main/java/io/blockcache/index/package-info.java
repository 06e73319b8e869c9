/**
 * The extent index: backing range to cache location, dirty bit, generation and checksum; overlap
 * splitting; ordered scans from a cursor; GC slices in whole B+tree leaves.
 *
 * <p>{@link io.blockcache.index.ExtentIndex} is the public face (one per backing volume);
 * {@link io.blockcache.index.ExtentLocation} packs a cache location into a {@code long}; the B+tree
 * ({@code ExtentTree}, {@code LeafNode}, {@code InnerNode}) stores extents in parallel primitive arrays,
 * never one object per extent.
 *
 * <p>Depends on nothing above {@code loop}. Thread rule: owned by one cache's loop thread; nothing in this
 * package is thread-safe and no call blocks.
 */
package io.blockcache.index;
