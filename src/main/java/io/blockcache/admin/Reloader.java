package io.blockcache.admin;

import java.util.List;

/**
 * Re-reads the server's configuration and applies what can change while it runs ({@code POST /api/reload}, which
 * systemd's {@code ExecReload} calls through {@code blockcache reload}).
 *
 * <p>Thread rule: called on an admin HTTP thread, never the loop's; it may wait for the loop.
 */
@FunctionalInterface
public interface Reloader {
    /**
     * Applies the configuration as it is now.
     *
     * @return one line per change made or noticed (e.g. a setting that takes effect only at the next start)
     * @throws IllegalArgumentException with a one-line reason when the configuration is refused; a refused file
     *     changes nothing, a refused knob value stops at that knob (the lines before it say what was applied)
     */
    List<String> reload();
}
