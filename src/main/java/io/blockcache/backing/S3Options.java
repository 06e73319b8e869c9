package io.blockcache.backing;

import java.net.URI;

/**
 * How an {@code s3://} backing is reached and owned, validated once here.
 *
 * @param endpoint the S3 endpoint ({@code --s3-endpoint}, e.g. {@code http://127.0.0.1:9000} for MinIO or
 *     S3Proxy; path-style requests), or null for AWS itself (virtual-hosted style, the region's endpoint)
 * @param takeOver whether to take ownership of a volume another cache owns ({@code --take-over}: a deliberate
 *     failover, docs/SCALE.md)
 * @param ownerId who this cache is, as written in the volume's owner object: the host name and the cache file's
 *     absolute path (the cache that holds the volume's dirty data owns it, so the same cache reopening after a
 *     crash is the same owner)
 * @param retryTimeMs how long, in ms of loop time, a failed S3 request (a chunk PUT, a GET) is retried with backoff
 *     after the SDK's own attempts, before the flush or read waiting for it reports the error
 *     ({@code s3-retry-time}, default {@link #RETRY_TIME_MS_DEFAULT}); 0 retries nothing
 */
public record S3Options(URI endpoint, boolean takeOver, String ownerId, long retryTimeMs) {
    /**
     * Two minutes: longer than the network blips, endpoint restarts and throttling bursts a write-back cache should
     * ride through (the data stays staged meanwhile), short enough that a real outage reaches the flush, the log
     * and the operator within minutes.
     */
    public static final long RETRY_TIME_MS_DEFAULT = 120_000;
    /** A day: longer is "never", and a flush must learn of an outage some day. */
    public static final long RETRY_TIME_MS_MAX = 86_400_000;
    /** No endpoint override, no take-over, an owner id to fill in. */
    public static final S3Options DEFAULTS = new S3Options(null, false, "unknown");

    /** Options with the default retry time. */
    public S3Options(URI endpoint, boolean takeOver, String ownerId) {
        this(endpoint, takeOver, ownerId, RETRY_TIME_MS_DEFAULT);
    }

    public S3Options {
        if (retryTimeMs < 0 || retryTimeMs > RETRY_TIME_MS_MAX) {
            throw new IllegalArgumentException("s3-retry-time must be 0 to " + RETRY_TIME_MS_MAX / 1000
                    + " seconds, got " + retryTimeMs + " ms");
        }
        if (endpoint != null && (endpoint.getScheme() == null || endpoint.getHost() == null
                || !(endpoint.getScheme().equals("http") || endpoint.getScheme().equals("https")))) {
            throw new IllegalArgumentException("--s3-endpoint must be an http:// or https:// URL with a host, got \""
                    + endpoint + "\"");
        }
        if (ownerId == null || ownerId.isBlank() || ownerId.contains("\n")) {
            throw new IllegalArgumentException("the owner id must be one non-blank line");
        }
    }

    /** These options with {@code endpoint}. */
    public S3Options withEndpoint(URI newEndpoint) {
        return new S3Options(newEndpoint, takeOver, ownerId, retryTimeMs);
    }

    /** These options with {@code takeOver}. */
    public S3Options withTakeOver(boolean newTakeOver) {
        return new S3Options(endpoint, newTakeOver, ownerId, retryTimeMs);
    }

    /** These options with {@code newOwnerId}. */
    public S3Options withOwnerId(String newOwnerId) {
        return new S3Options(endpoint, takeOver, newOwnerId, retryTimeMs);
    }

    /** These options with {@code newRetryTimeMs}. */
    public S3Options withRetryTimeMs(long newRetryTimeMs) {
        return new S3Options(endpoint, takeOver, ownerId, newRetryTimeMs);
    }

    /**
     * The owner id of the cache in {@code cacheFile} on this host: {@code HOST:/absolute/path}. Blocking (it may ask
     * the resolver for the host name); start-up only.
     */
    public static String ownerIdFor(java.nio.file.Path cacheFile) {
        String host;
        try {
            host = java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.net.UnknownHostException e) {
            host = System.getenv().getOrDefault("HOSTNAME", "localhost");
        }
        return host + ":" + cacheFile.toAbsolutePath().normalize();
    }

    /** Parses an endpoint URL, with a one-line message for a bad one. */
    public static URI endpoint(String text) {
        try {
            URI uri = URI.create(text.strip());
            new S3Options(uri, false, "check");
            return uri;
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(e.getMessage().startsWith("--s3-endpoint") ? e.getMessage()
                    : "--s3-endpoint \"" + text + "\" is not a URL: " + e.getMessage());
        }
    }
}
