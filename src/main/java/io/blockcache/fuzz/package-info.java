/**
 * The adversarial whole-cache simulator behind {@code blockcache simulate fuzz} (docs/TESTING.md):
 * from one seed it draws a cache geometry and knobs, runs several volumes' workloads against a cache set on
 * simulated disks that reorder, tear and lose unflushed writes, switches modes and knobs live, crashes and
 * restarts, and checks the durability contract and the clean-copy oracles after every recovery.
 *
 * <p>Depends on {@code engine}, {@code sim} and below; nothing in the engine depends on it. Thread rule: the
 * thread that runs a scenario owns its {@code SimLoop}.
 */
package io.blockcache.fuzz;
