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

    /**
     * An export of a remote NBD server.
     *
     * @param uri the server and export
     * @param requestTimeoutNs how long the client waits for a reply before it breaks the connection and reconnects
     *     (at least 10 ms; {@link NbdDevice#REQUEST_TIMEOUT_NS_DEFAULT} unless configured)
     */
    record Nbd(NbdUri uri, long requestTimeoutNs) implements BackingLocation {
        public Nbd {
            Objects.requireNonNull(uri, "uri");
            if (requestTimeoutNs < NbdDevice.REQUEST_TIMEOUT_NS_MIN) {
                throw new IllegalArgumentException("the NBD request timeout must be at least "
                        + NbdDevice.REQUEST_TIMEOUT_NS_MIN / 1_000_000 + " ms: " + requestTimeoutNs + " ns");
            }
        }

        /** The export with the default request timeout. */
        public Nbd(NbdUri uri) {
            this(uri, NbdDevice.REQUEST_TIMEOUT_NS_DEFAULT);
        }

        /** This location with {@code newTimeoutNs}. */
        public Nbd withRequestTimeoutNs(long newTimeoutNs) {
            return new Nbd(uri, newTimeoutNs);
        }

        @Override
        public String display() {
            return uri.toString();
        }
    }

    /**
     * A volume in an S3 bucket ({@code s3://bucket/prefix}).
     *
     * @param uri the bucket and prefix
     * @param options the endpoint, take-over and owner id (set by the command line after parsing)
     */
    record S3(S3Uri uri, S3Options options) implements BackingLocation {
        public S3 {
            Objects.requireNonNull(uri, "uri");
            Objects.requireNonNull(options, "options");
        }

        /** This location with {@code newOptions}. */
        public S3 withOptions(S3Options newOptions) {
            return new S3(uri, newOptions);
        }

        @Override
        public String display() {
            return uri.toString();
        }
    }
}
