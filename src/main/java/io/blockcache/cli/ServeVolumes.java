package io.blockcache.cli;

import io.blockcache.admin.AdminServer;
import io.blockcache.admin.VolumeControl;
import io.blockcache.backing.BackingLocation;
import io.blockcache.backing.BackingUris;
import io.blockcache.engine.Pinning;
import io.blockcache.host.CacheHost;
import io.blockcache.host.HostException;
import io.blockcache.nbd.NbdServer;
import io.blockcache.volume.CacheMode;
import io.blockcache.volume.Volume;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code serve}'s volumes as live objects ({@code /api/volumes}, {@code blockcache volume}): the host attaches,
 * detaches or grows the backing store, the NBD server starts or stops offering the export, the admin API's counters
 * follow. An export is withdrawn before its volume is detached, so no client connects to a volume going away; it is
 * offered again if the detach is refused before the volume was closed, and its connected clients are disconnected once
 * the detach succeeded, or failed after closing it (then it stays attached and closed, unexported, until a restart).
 *
 * <p>Thread rule: the admin API's request threads; one change at a time (synchronized).
 */
final class ServeVolumes implements VolumeControl {
    private final CacheHost host;
    private final NbdServer nbd;
    private final AdminServer admin;
    private final PinFile pins;

    ServeVolumes(CacheHost host, NbdServer nbd, AdminServer admin, PinFile pins) {
        this.host = host;
        this.nbd = nbd;
        this.admin = admin;
        this.pins = pins;
    }

    @Override
    public synchronized void add(String name, String uri, long sizeBytes, long logBytes, boolean inPlace, String mode,
                                 boolean force) throws Refused {
        BackingLocation location = BackingUris.parse(uri); // IllegalArgumentException: a malformed request
        try {
            Volume volume = host.addVolume(name, location, sizeBytes, logBytes, inPlace, mode(mode), force);
            nbd.addExport(name, volume);
        } catch (HostException e) {
            throw new Refused(e.getMessage());
        } finally {
            admin.setBackings(host.backings());
        }
    }

    @Override
    public synchronized void remove(String name, boolean discardDirty) throws Refused {
        Volume volume = volume(name);
        boolean withdrawn = nbd.removeExport(name);
        try {
            host.removeVolume(name, discardDirty);
            nbd.disconnectRemoved(name); // its clients would only get errors now; logs how many there were
            forgetPinsOfRemoved();
        } catch (HostException e) {
            if (withdrawn && volume != null && volume(name) == volume) {
                if (closed(volume)) {
                    // Refused after the volume was closed (host.volume.detach_failed): it would only answer
                    // ESHUTDOWN until the next start, so it is not offered again and its clients are ended.
                    nbd.disconnectRemoved(name);
                } else {
                    nbd.addExport(name, volume); // refused before anything changed: it is served again
                }
            }
            throw new Refused(e.getMessage());
        } finally {
            admin.setBackings(host.backings());
        }
    }

    @Override
    public synchronized void resize(String name, long sizeBytes) throws Refused {
        try {
            host.growVolume(name, sizeBytes);
        } catch (HostException e) {
            throw new Refused(e.getMessage());
        }
    }

    private boolean closed(Volume volume) throws Refused {
        try {
            return host.<Boolean>onLoop(done -> done.accept(volume.isClosed()));
        } catch (HostException e) {
            throw new Refused(e.getMessage());
        }
    }

    @Override
    public synchronized void pin(String name, long offsetBytes, long lengthBytes, boolean unpin) throws Refused {
        try {
            PinChange after = host.<PinChange>onLoop(done -> {
                Pinning pinning = new Pinning(host.cacheSet());
                String refused = unpin ? pinning.unpin(name, offsetBytes, lengthBytes)
                        : pinning.pin(name, offsetBytes, lengthBytes);
                done.accept(new PinChange(refused, pinning.ranges()));
            });
            if (after.refused() != null) {
                throw new Refused(after.refused());
            }
            save(pins, after.ranges());
        } catch (HostException e) {
            throw new Refused(e.getMessage());
        }
    }

    /**
     * Rewrites the pin file without a volume just removed (its pins left memory with it): kept there, they would pin a
     * volume of the same name added before the next start. Best effort: the removal is done, and a start drops the
     * pins of a volume it does not have (pin.dropped).
     */
    private void forgetPinsOfRemoved() {
        try {
            save(pins, host.<List<Pinning.Range>>onLoop(done -> done.accept(new Pinning(host.cacheSet()).ranges())));
        } catch (HostException | Refused e) {
            // the next start drops them, as above
        }
    }

    /** What a pin or unpin did on the loop: its refusal or null, and every volume's pins after it. */
    private record PinChange(String refused, List<Pinning.Range> ranges) {
    }

    /** Saves {@code ranges} in {@code file}; the pin is in force already, so a failure says so. */
    static void save(PinFile file, List<Pinning.Range> ranges) throws Refused {
        List<PinFile.Pin> pins = new ArrayList<>();
        for (Pinning.Range range : ranges) {
            pins.add(new PinFile.Pin(range.volume(), range.offsetBytes(), range.lengthBytes()));
        }
        try {
            file.save(pins);
        } catch (IOException e) {
            throw new Refused("the pins are in force but could not be saved in " + file.path() + " for the next"
                    + " start: " + e.getMessage());
        }
    }

    private Volume volume(String name) throws Refused {
        try {
            return host.<Volume>onLoop(done -> done.accept(host.cacheSet().volume(name)));
        } catch (HostException e) {
            throw new Refused(e.getMessage());
        }
    }

    /** The mode named {@code text} ({@code writeback}, {@code write-through}, ...), or null for none given. */
    static CacheMode mode(String text) {
        if (text == null || text.isEmpty()) {
            return null;
        }
        String normal = text.strip().toUpperCase(Locale.ROOT).replace("-", "").replace("_", "");
        for (CacheMode mode : CacheMode.values()) {
            if (mode.name().equals(normal)) {
                return mode;
            }
        }
        throw new IllegalArgumentException("mode \"" + text + "\" is not one of writeback, writethrough, writearound,"
                + " none");
    }
}
