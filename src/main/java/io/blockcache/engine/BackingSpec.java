package io.blockcache.engine;

import io.blockcache.device.BlockDevice;
import java.util.Objects;

/**
 * A backing device to format or open, and the name its volume is exported under.
 *
 * @param name export name, 1..63 bytes of UTF-8, unique in the cache set
 * @param device the whole backing device; its first {@code 1 MiB} holds the backing header
 */
public record BackingSpec(String name, BlockDevice device) {
    public BackingSpec {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(device, "device");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("a backing device needs a non-empty export name");
        }
    }
}
