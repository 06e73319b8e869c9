package io.blockcache.host;

import io.blockcache.backing.BackingLocation;
import io.blockcache.backing.BackingUris;
import io.blockcache.format.AttachedBacking;
import io.blockcache.format.DecodeResult;
import io.blockcache.format.SuperblockPair;
import java.io.IOException;
import java.nio.file.Files;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Which volumes an existing cache has, read from its superblock before anything is opened: those added live carry
 * their store's location (docs/FORMAT.md §3), so a start finds them without a {@code --backing}; a {@code --backing}
 * of a name the cache does not have is added through the same path as {@code blockcache volume add}, after the open,
 * instead of being refused as a missing store (which also left a damage map file behind).
 *
 * @param forOpen the files to open: the given backings of names the cache has, plus the recorded ones not given
 * @param toAdd given backings of names the cache does not have, in the order given
 */
record KnownVolumes(HostFiles forOpen, Map<String, BackingLocation> toAdd) {
    /** Blocking reads of the cache file; any thread but a loop's. */
    static KnownVolumes of(HostFiles files) throws HostException {
        if (!Files.exists(files.cacheFile())) {
            return new KnownVolumes(files, Map.of());
        }
        byte[] head;
        try {
            head = MetadataGuard.head(files.cacheFile());
        } catch (IOException e) {
            return new KnownVolumes(files, Map.of()); // the open reports it, with its own words
        }
        DecodeResult<SuperblockPair> pair = SuperblockPair.readHead(head);
        if (!pair.isOk()) {
            return new KnownVolumes(files, Map.of()); // the open refuses it, naming what is wrong with each copy
        }
        Map<String, BackingLocation> open = new LinkedHashMap<>();
        Map<String, BackingLocation> add = new LinkedHashMap<>(files.backings());
        for (AttachedBacking slot : pair.value().chosen().backings()) {
            BackingLocation given = add.remove(slot.exportName());
            if (given != null) {
                open.put(slot.exportName(), given);
            } else if (!slot.location().isEmpty()) {
                try {
                    open.put(slot.exportName(), files.remote().applyTo(BackingUris.parse(slot.location())));
                } catch (IllegalArgumentException e) {
                    throw new HostException("volume \"" + slot.exportName() + "\" was added at " + slot.location()
                            + ", which this build cannot open (" + e.getMessage() + "); give it with --backing "
                            + slot.exportName() + "=...");
                }
            }
            // Neither given nor recorded: the open refuses it as missing, as before.
        }
        if (open.isEmpty()) {
            return new KnownVolumes(files, Map.of()); // nothing to open with: the open says what is missing
        }
        return new KnownVolumes(files.withBackings(open), add);
    }
}
