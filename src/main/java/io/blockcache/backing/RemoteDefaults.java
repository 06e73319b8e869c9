package io.blockcache.backing;

import java.net.URI;

/**
 * How this process reaches remote backing stores, set once for all of them ({@code serve}'s {@code --s3-endpoint},
 * {@code --take-over}, {@code s3-retry-time} and {@code --nbd-backing-timeout}; the library's equivalents): applied to
 * the {@code s3://} and {@code nbd://} locations given at a start, to those a cache recorded for volumes added live
 * (a record holds the URI only) and to those added live. Pure value; any thread.
 *
 * @param s3Endpoint the S3 endpoint, or null for AWS itself
 * @param takeOver take {@code s3://} volumes another cache owns (docs/SCALE.md)
 * @param s3RetryTimeMs how long a failed S3 request is retried, in ms ({@link S3Options#retryTimeMs})
 * @param nbdRequestTimeoutNs how long an NBD backing's client waits for a reply, in ns ({@link BackingLocation.Nbd})
 */
public record RemoteDefaults(URI s3Endpoint, boolean takeOver, long s3RetryTimeMs, long nbdRequestTimeoutNs) {
    /** The built-in defaults: AWS, no take-over, the default retry time and request timeout. */
    public static final RemoteDefaults NONE = new RemoteDefaults(null, false, S3Options.RETRY_TIME_MS_DEFAULT,
            NbdDevice.REQUEST_TIMEOUT_NS_DEFAULT);

    /** {@code location} with these settings; a file as it is. */
    public BackingLocation applyTo(BackingLocation location) {
        return switch (location) {
            case BackingLocation.S3 s3 -> s3.withOptions(s3.options().withEndpoint(s3Endpoint).withTakeOver(takeOver)
                    .withRetryTimeMs(s3RetryTimeMs));
            case BackingLocation.Nbd nbd -> nbd.withRequestTimeoutNs(nbdRequestTimeoutNs);
            case BackingLocation.File file -> file;
        };
    }
}
