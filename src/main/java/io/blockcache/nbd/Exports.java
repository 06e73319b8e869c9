package io.blockcache.nbd;

import io.blockcache.volume.Volume;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The server's exports by name, in the order given, each with who may use it; the first one is also the default
 * export (the empty name). Volumes added and removed while the server runs come and go through {@link #add} and
 * {@link #remove}; a connection keeps the export it negotiated. Any thread (copy-on-write).
 */
final class Exports {
    private final List<Export> exports = new CopyOnWriteArrayList<>();
    /** Exports withdrawn by {@link #remove}, by name, until added again or forgotten (never iterated). */
    private final Map<String, Export> withdrawn = new ConcurrentHashMap<>();

    Exports(Map<String, Volume> volumes) {
        this(volumes, Map.of());
    }

    /**
     * @param access who may use each export, by name; an export not named is open to every client
     * @throws IllegalArgumentException if {@code access} names an export that is not in {@code volumes}
     */
    Exports(Map<String, Volume> volumes, Map<String, ExportAccess> access) {
        for (String name : access.keySet()) {
            if (!volumes.containsKey(name)) {
                throw new IllegalArgumentException("an allow-list names export '" + name + "', which is not served"
                        + " (exports: " + volumes.keySet() + ")");
            }
        }
        if (volumes.isEmpty()) {
            throw new IllegalArgumentException("an NBD server needs at least one export");
        }
        for (Map.Entry<String, Volume> entry : volumes.entrySet()) {
            if (entry.getKey().isEmpty()) {
                throw new IllegalArgumentException("export names must not be empty (empty means the default)");
            }
            exports.add(new Export(entry.getKey(), entry.getValue(),
                    access.getOrDefault(entry.getKey(), ExportAccess.OPEN)));
        }
    }

    /**
     * Serves {@code volume} as {@code name} from now on, open to every client. The export {@link #remove} withdrew for
     * the same volume is offered again as it was (its access and range lock: the connections that kept it and the new
     * ones must exclude each other's read-modify-writes).
     */
    void add(String name, Volume volume) {
        if (name.isEmpty() || find(name) != null) {
            throw new IllegalArgumentException("export name \"" + name + "\" is empty or served already");
        }
        Export before = withdrawn.remove(name);
        exports.add(before != null && before.volume() == volume ? before
                : new Export(name, volume, ExportAccess.OPEN));
    }

    /** Stops offering export {@code name} to new connections; true if there was one. */
    boolean remove(String name) {
        Export export = find(name);
        if (name.isEmpty() || export == null) {
            return false;
        }
        withdrawn.put(name, export);
        return exports.remove(export);
    }

    /** Forgets the export {@link #remove} withdrew under {@code name}: its volume is gone. */
    void forget(String name) {
        withdrawn.remove(name);
    }

    /** True while {@code export} (this very one, not another of its name) is offered. */
    boolean offers(Export export) {
        for (Export offered : exports) {
            if (offered == export) {
                return true;
            }
        }
        return false;
    }

    /** The export called {@code name}; the empty name is the first export; null if there is none. */
    Export find(String name) {
        if (name.isEmpty()) {
            List<Export> now = exports;
            return now.isEmpty() ? null : now.get(0);
        }
        for (Export export : exports) {
            if (export.name().equals(name)) {
                return export;
            }
        }
        return null;
    }

    List<Export> all() {
        return Collections.unmodifiableList(exports);
    }
}
