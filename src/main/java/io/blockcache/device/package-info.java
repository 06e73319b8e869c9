/**
 * Block devices: the asynchronous {@link io.blockcache.device.BlockDevice} contract (submit, then a
 * completion on the owning loop; errors as values), the file-backed device with its bounded pool of I/O
 * threads, the in-memory device, per-device counters, and the {@code ForwardingDevice} base for decorators.
 *
 * <p>Depends on {@code loop} only. Thread rule: submit on the owning loop's thread; counters are readable
 * from any thread.
 */
package io.blockcache.device;
