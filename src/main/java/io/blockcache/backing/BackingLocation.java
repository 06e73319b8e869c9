package io.blockcache.backing;

import java.nio.file.Path;
import java.util.Objects;

/**
 * Where a backing store lives, as parsed from a {@code --backing NAME=URI} value by {@link BackingUris}.
 * Pure values; any thread.
 */
public sealed interface BackingLocation {
    /** The location as the user should see it in messages. */
    String display();

    /** A file or block device, {@code file:PATH} or a plain path. @param path the file */
    record File(Path path) implements BackingLocation {
        public File {
            Objects.requireNonNull(path, "path");
        }

        @Override
        public String display() {
            return path.toString();
        }
    }

    /** An export of a remote NBD server. @param uri the server and export */
    record Nbd(NbdUri uri) implements BackingLocation {
        public Nbd {
            Objects.requireNonNull(uri, "uri");
        }

        @Override
        public String display() {
            return uri.toString();
        }
    }
}
