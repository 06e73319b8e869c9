/**
 * Writeback (docs/WRITEBACK.md): one {@link io.blockcache.writeback.Writeback} per volume scans dirty keys into bounded
 * buffers ({@code DirtyScanner}, {@code KeySources}), runs passes ({@code PassPicker}, {@code WritebackRun},
 * {@code PassIo}) that read the cache in LBA (or age) order and write each merged run to the backing device as soon as
 * its reads are in, marks keys clean only behind a backing flush ({@code CleanMarker}), and paces itself with bcache's
 * PI controller ({@code RateController}, {@code Pacer}), an early-flush idle detector ({@code IdleDetector}), a queue
 * governor on measured bandwidth ({@code QueueGovernor}) and a dirty-age bound ({@code DirtyAges}). A drain is a
 * {@code DrainJob} (running, paused, cancelled, done, failed) with a rate cap and a deadline.
 *
 * <p>Owns: its buffers, keys in flight, rate state and counters. Uses the volume's index, the cache space and
 * the devices. Thread rule: everything on the owning cache's loop thread; counters are readable anywhere.
 */
package io.blockcache.writeback;
