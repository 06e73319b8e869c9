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
 */
public record S3Options(URI endpoint, boolean takeOver, String ownerId) {
    /** No endpoint override, no take-over, an owner id to fill in. */
    public static final S3Options DEFAULTS = new S3Options(null, false, "unknown");

    public S3Options {
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
        return new S3Options(newEndpoint, takeOver, ownerId);
    }

    /** These options with {@code takeOver}. */
    public S3Options withTakeOver(boolean newTakeOver) {
        return new S3Options(endpoint, newTakeOver, ownerId);
    }

    /** These options with {@code newOwnerId}. */
    public S3Options withOwnerId(String newOwnerId) {
        return new S3Options(endpoint, takeOver, newOwnerId);
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
