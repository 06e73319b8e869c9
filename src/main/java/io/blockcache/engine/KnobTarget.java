package io.blockcache.engine;

import io.blockcache.gc.GarbageCollector;
import io.blockcache.volume.Volume;
import io.blockcache.writeback.Writeback;

/**
 * The live components a knob reads and replaces settings of: for a volume's knobs its {@link Volume} and its
 * {@link Writeback} ({@code gc} null); for the cache set's, the {@link GarbageCollector} (the others null).
 *
 * @param volume the volume, or null for a cache set's knob
 * @param writeback the volume's writeback, or null for a cache set's knob
 * @param gc the garbage collector, or null for a volume's knob
 */
record KnobTarget(Volume volume, Writeback writeback, GarbageCollector gc) {
    static KnobTarget ofVolume(Volume volume, Writeback writeback) {
        return new KnobTarget(volume, writeback, null);
    }

    static KnobTarget ofGc(GarbageCollector gc) {
        return new KnobTarget(null, null, gc);
    }
}
