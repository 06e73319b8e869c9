/**
 * The simulator: HDD, SSD and object-store models that hold real contents and charge modelled time, crash images
 * that keep only what a device would have kept after a power cut, fault injection, seeded workload
 * generators, and the harness that runs whole scenarios in virtual time from one seed.
 *
 * <p>Nothing in the engine depends on this package; it depends on the engine only through
 * {@link io.blockcache.device.BlockDevice} and {@link io.blockcache.loop.EventLoop}. Thread rule: all of it
 * runs on the thread that drives the {@link io.blockcache.loop.SimLoop}.
 */
package io.blockcache.sim;
