/**
 * Event loops: the {@link io.blockcache.loop.EventLoop} interface the engine sees (time, tasks, timers,
 * completion delivery), the real loop (one thread, a task queue, timers, parked when idle), the simulated
 * loop (virtual time, single-threaded, deterministic), {@link io.blockcache.loop.Clock} and the seeded
 * {@link io.blockcache.loop.Prng}, and {@link io.blockcache.loop.LoopCalls}, which lets a foreign thread wait
 * for one operation on a real loop.
 *
 * <p>Depends on nothing else in blockcache. Thread rule: see each type; only
 * {@link io.blockcache.loop.EventLoop#execute(Runnable)} of a real loop (and {@code LoopCalls}, which uses it) may
 * be called from foreign threads.
 */
package io.blockcache.loop;
