/**
 * The library API of blockcache: a write-back block cache on files, embedded in a Java application.
 * {@link io.blockcache.embed.BlockCache#open} opens (or creates and formats) a cache from a
 * {@link io.blockcache.embed.BlockCacheConfig}; each backing file is a {@link io.blockcache.embed.CachedVolume}
 * with asynchronous read, write, flush and trim that return {@link java.util.concurrent.CompletableFuture}s and
 * may be called from any thread; {@link io.blockcache.embed.BlockCache#close} stops cleanly. docs/EMBEDDING.md
 * has a complete example.
 *
 * <p><b>This package is the whole public API.</b> Every other package under {@code io.blockcache} ({@code engine},
 * {@code volume}, {@code loop}, {@code host}, {@code nbd}, {@code admin}, {@code cli}, ...) is internal: public
 * only so that the packages can use one another, and free to change in any release. The public types here
 * mention no internal type in a public signature ({@code rules.EmbedApiTest} checks it).
 *
 * <p>Thread rule: every method of every type here may be called from any thread except a cache's own loop
 * thread (which application code never sees); futures complete on the configured completion executor.
 */
package io.blockcache.embed;
