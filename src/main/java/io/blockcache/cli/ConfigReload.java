package io.blockcache.cli;

import io.blockcache.admin.Reloader;
import io.blockcache.engine.Knob;
import io.blockcache.host.CacheHost;
import io.blockcache.host.HostException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * {@code serve}'s reload ({@code POST /api/reload}, {@code blockcache reload}, systemd's {@code ExecReload}): reads
 * the config file again with the same flags, sets every {@code knob.NAME} line whose value differs from the live
 * one, and names each other setting that changed, which takes effect only at the next start (files, sizes,
 * listen addresses, the initial mode, the NBD limits, TLS, the admin token and the exports' allow-lists). A file
 * that does not parse or validate changes nothing.
 *
 * <p>Thread rule: an admin HTTP thread; it waits for the loop.
 */
final class ConfigReload implements Reloader {
    /** {@code serve}'s arguments, parsed again at each reload: the flags keep winning over the file. */
    private final List<String> args;
    private final Path config;
    private final ServeSettings running;
    private final CacheHost host;

    /**
     * @param args {@code serve}'s arguments as given
     * @param config the config file they name, for messages
     */
    ConfigReload(List<String> args, Path config, ServeSettings running, CacheHost host) {
        this.args = List.copyOf(args);
        this.config = config;
        this.running = running;
        this.host = host;
    }

    @Override
    public synchronized List<String> reload() {
        ServeSettings next;
        try {
            next = ServeSettings.of(ServeOptions.parse(args));
        } catch (IllegalArgumentException e) {
            String message = e.getMessage();
            throw new IllegalArgumentException((message.contains(config.toString()) ? "" : config + ": ") + message
                    + "; nothing changed");
        }
        List<String> changes = new ArrayList<>();
        for (Map.Entry<String, String> knob : next.knobs().entrySet()) {
            String live = liveValue(knob.getKey(), null);
            // Compared as the knob prints it, so that "30s" in the file is no change from a live 30000 ms.
            if (live != null && live.equals(liveValue(knob.getKey(), knob.getValue()))) {
                continue;
            }
            String problem = apply(knob.getKey(), knob.getValue());
            if (problem != null) {
                throw new IllegalArgumentException((changes.isEmpty() ? "" : "applied " + changes + "; then ")
                        + problem + "; later knobs not applied");
            }
            changes.add("knob." + knob.getKey() + ": " + live + " -> " + knob.getValue());
        }
        restartOnly(changes, "data-dir", running.dataDir(), next.dataDir());
        restartOnly(changes, "cache", running.cacheFile(), next.cacheFile());
        restartOnly(changes, "backing", running.backings(), next.backings());
        restartOnly(changes, "cache-size", running.cacheSizeBytes(), next.cacheSizeBytes());
        restartOnly(changes, "backing-size", running.backingSizeBytes(), next.backingSizeBytes());
        restartOnly(changes, "nbd-listen", running.nbdListen(), next.nbdListen());
        restartOnly(changes, "admin-listen", running.adminListen(), next.adminListen());
        restartOnly(changes, "mode", running.mode(), next.mode());
        restartOnly(changes, "damage-map", running.damageMap(), next.damageMap());
        restartOnly(changes, "nbd limits (nbd-*)", running.nbdLimits(), next.nbdLimits());
        // Credentials are read at start only (a renewed certificate too); a reload re-reads them only to check.
        restartOnly(changes, "tls (tls-*)", running.tls().summary(), next.tls().summary());
        restartOnly(changes, "access (admin-token-file, export.NAME.allow-*)", running.access().summary(),
                next.access().summary());
        return changes;
    }

    /** The knob's value in force ({@code configured} null), or {@code configured} as it prints it; null if none. */
    private String liveValue(String name, String configured) {
        try {
            return host.<String>onLoop(done -> {
                Knob knob = host.cacheSet().knobs().find(name);
                done.accept(knob == null ? null : configured == null ? knob.get() : normalized(knob, configured));
            });
        } catch (HostException e) {
            throw new IllegalArgumentException(e.getMessage());
        }
    }

    private static String normalized(Knob knob, String configured) {
        try {
            return knob.normalize(configured);
        } catch (IllegalArgumentException refused) {
            return configured; // applied below, where the refusal is reported
        }
    }

    private String apply(String name, String value) {
        try {
            return host.applyKnobs(Map.of(name, value));
        } catch (HostException e) {
            return e.getMessage();
        }
    }

    private static void restartOnly(List<String> changes, String key, Object was, Object now) {
        if (Objects.equals(was, now)) {
            return;
        }
        if (key.equals("cache-size")) {
            // The next start grows a smaller cache to a size given in the config; it never shrinks one.
            changes.add(key + ": " + was + " -> " + now + (((Long) now) > ((Long) was)
                    ? " grows the cache at the next start (not on reload)"
                    : " is not applied: a cache is never shrunk (the next start keeps its size)"));
            return;
        }
        if (key.equals("backing-size")) {
            // A size is used only when the file is created; saying "at the next start" promised a resize that the
            // next start did not do.
            changes.add(key + ": " + was + " -> " + now + " applies only to a file created anew; the existing one"
                    + " keeps its size (it is not resized, on reload or at a restart)");
            return;
        }
        changes.add(key + ": " + was + " -> " + now + " takes effect at the next start, not on reload");
    }
}
