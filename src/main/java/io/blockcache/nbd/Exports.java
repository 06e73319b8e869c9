package io.blockcache.nbd;

import io.blockcache.volume.Volume;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * The server's exports by name, in the order given, each with who may use it; the first one is also the default
 * export (the empty name). Immutable after construction: any thread.
 */
final class Exports {
    private final List<Export> exports = new ArrayList<>();

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

    /** The export called {@code name}; the empty name is the first export; null if there is none. */
    Export find(String name) {
        if (name.isEmpty()) {
            return exports.get(0);
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
