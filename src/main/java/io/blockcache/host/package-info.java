/**
 * Hosting one cache set on files and a real loop, for the two programs that run one: {@code serve} (package
 * {@code cli}) and the embedding facade (package {@code embed}). {@link io.blockcache.host.CacheHost} creates
 * missing files, formats a new cache, opens (recovers) an existing one, applies knobs, and shuts down and
 * closes in order; it owns the loop, the file devices and the cache set. {@link io.blockcache.host.HostDevices}
 * opens the devices for it (backing stores checked before anything is created or written).
 *
 * <p>Internal: not part of the library API (that is {@code io.blockcache.embed}). Thread rule: called from
 * threads other than the loop's; it waits for the loop through {@code LoopCalls}.
 */
package io.blockcache.host;
