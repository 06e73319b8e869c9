package io.blockcache.backing;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.providers.AwsProfileRegionProvider;
import software.amazon.awssdk.regions.providers.AwsRegionProviderChain;
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain;
import software.amazon.awssdk.regions.providers.SystemSettingsRegionProvider;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * The few blocking S3 calls a volume needs, on the AWS SDK for Java v2 (its signing, retries, and the default
 * region and credential chains: environment variables, system properties, {@code ~/.aws} profiles, instance
 * roles). Path-style requests when an endpoint is given (S3Proxy, MinIO, Ceph RGW serve buckets under paths);
 * checksums only where an operation requires them, since S3Proxy rejects the SDK's default trailing checksums.
 *
 * <p>HTTP goes through the SDK's Apache HttpClient 5 client ({@link #httpClient}): a bounded pool of kept-alive
 * connections, each checked before reuse when it was idle (a connection the server or a middlebox dropped while idle
 * would otherwise fail the next PUT's body), with connect, socket and pool-acquisition timeouts.
 *
 * <p>Every error is an {@link IOException} with one line naming the volume; one that may pass with time (a broken or
 * timed-out connection, a 5xx answer, throttling) is a {@link Transient}, which {@link S3Io} retries. Thread rule:
 * any thread (the SDK client is thread-safe); every call blocks, so never on a loop thread.
 */
final class S3Store implements AutoCloseable {
    /** Connect timeout: an endpoint that does not answer in this long is unreachable (for this attempt). */
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    /**
     * Socket timeout, the longest silence on a connection while sending or receiving: a stalled connection is given
     * up after this and the request retried on another; a live link sends a 4 MiB chunk's packets far more often.
     */
    static final Duration SOCKET_TIMEOUT = Duration.ofSeconds(30);
    /**
     * Longest wait for a pooled connection: the pool has room for every I/O thread plus the owner record's renewal
     * and start-up calls, so a wait this long means a leak, reported as a failure rather than a hang.
     */
    static final Duration ACQUIRE_TIMEOUT = Duration.ofSeconds(10);
    /** Pooled connections at most: the I/O threads ({@link S3Device#IO_THREADS_DEFAULT}) and 4 for the rest. */
    static final int CONNECTIONS_MAX = S3Device.IO_THREADS_DEFAULT + 4;
    /**
     * A connection idle this long is closed rather than reused: below the idle timeouts of common servers and load
     * balancers (S3 closes idle connections after about 20 s), so a reused connection is rarely a dead one.
     */
    static final Duration CONNECTION_IDLE_MAX = Duration.ofSeconds(15);
    /**
     * Bound on one call with the SDK's retries (standard mode: 3 attempts with backoff); {@link S3Io}'s retries come
     * on top, so a flush learns of an outage at most this long after the retry time.
     */
    static final Duration CALL_TIMEOUT = Duration.ofSeconds(120);
    /** Region used with an explicit endpoint when the chain finds none (S3Proxy and MinIO accept any). */
    static final Region REGION_FOR_ENDPOINTS = Region.US_EAST_1;

    private final S3Uri uri;
    private final S3Client client;
    private final String where;

    private S3Store(S3Uri uri, S3Client client, String where) {
        this.uri = uri;
        this.client = client;
        this.where = where;
    }

    /** An object's body and entity tag. */
    record Found(byte[] body, String etag) {
    }

    /**
     * Builds a client for {@code uri}; makes no request.
     *
     * @throws IOException if no region can be found (AWS without AWS_REGION or a profile region)
     */
    static S3Store open(S3Uri uri, S3Options options) throws IOException {
        return open(uri, options, DefaultCredentialsProvider.builder().build());
    }

    /** {@link #open(S3Uri, S3Options)} with the credentials of {@code credentials} (tests). */
    static S3Store open(S3Uri uri, S3Options options, AwsCredentialsProvider credentials) throws IOException {
        return open(uri, options, credentials, httpClient(SOCKET_TIMEOUT));
    }

    /**
     * The HTTP client of every store: Apache HttpClient 5 with the timeouts and the pool bound above, and
     * {@code socketTimeout} (tests shorten it to meet their stalls quickly).
     */
    static SdkHttpClient.Builder<?> httpClient(Duration socketTimeout) {
        return Apache5HttpClient.builder().connectionTimeout(CONNECT_TIMEOUT).socketTimeout(socketTimeout)
                .connectionAcquisitionTimeout(ACQUIRE_TIMEOUT).maxConnections(CONNECTIONS_MAX)
                .connectionMaxIdleTime(CONNECTION_IDLE_MAX).useIdleConnectionReaper(true).tcpKeepAlive(true);
    }

    /**
     * {@link #open(S3Uri, S3Options, AwsCredentialsProvider)} over the HTTP client {@code http} builds (tests and
     * the side-by-side timing of HTTP clients); the store owns and closes that client.
     */
    static S3Store open(S3Uri uri, S3Options options, AwsCredentialsProvider credentials,
                        SdkHttpClient.Builder<?> http) throws IOException {
        S3ClientBuilder builder = S3Client.builder()
                .httpClientBuilder(http)
                .credentialsProvider(credentials)
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .overrideConfiguration(o -> o.apiCallTimeout(CALL_TIMEOUT));
        String where = uri + (options.endpoint() == null ? "" : " at " + options.endpoint());
        Region region;
        try {
            // With an endpoint, only the cheap sources: the full chain ends in the EC2 metadata service, which
            // off EC2 costs seconds of timeouts to find nothing.
            region = options.endpoint() == null ? DefaultAwsRegionProviderChain.builder().build().getRegion()
                    : new AwsRegionProviderChain(new SystemSettingsRegionProvider(), new AwsProfileRegionProvider())
                            .getRegion();
        } catch (SdkClientException noRegion) {
            if (options.endpoint() == null) {
                throw new IOException(where + ": no AWS region configured (set AWS_REGION or a region in the "
                        + "profile, or give --s3-endpoint)");
            }
            region = REGION_FOR_ENDPOINTS;
        }
        builder.region(region);
        if (options.endpoint() != null) {
            builder.endpointOverride(options.endpoint()).forcePathStyle(true);
        }
        try {
            return new S3Store(uri, builder.build(), where);
        } catch (SdkException e) {
            throw new IOException(where + ": " + oneLine(e));
        }
    }

    /** A store over a client built elsewhere (tests: a client that injects faults); closing the store closes it. */
    static S3Store over(S3Uri uri, S3Client client, String where) {
        return new S3Store(uri, client, where);
    }

    /** The volume as messages name it: the URI and, if given, the endpoint. */
    String where() {
        return where;
    }

    /** Checks that the bucket exists and the credentials may use it. */
    void checkBucket() throws IOException {
        try {
            client.headBucket(b -> b.bucket(uri.bucket()));
        } catch (S3Exception e) {
            if (e.statusCode() == 404) {
                throw new IOException(where + ": bucket \"" + uri.bucket() + "\" does not exist");
            }
            throw failure("cannot use bucket \"" + uri.bucket() + "\"", e);
        } catch (SdkException e) {
            throw failure("cannot reach the S3 endpoint", e);
        }
    }

    /** The whole object {@code name} with its entity tag, or null if there is none. */
    Found get(String name) throws IOException {
        try (ResponseInputStream<GetObjectResponse> in = client.getObject(GetObjectRequest.builder()
                .bucket(uri.bucket()).key(uri.key(name)).build())) {
            return new Found(in.readAllBytes(), in.response().eTag());
        } catch (S3Exception e) {
            if (e.statusCode() == 404) {
                return null;
            }
            throw failure("GET " + name, e);
        } catch (SdkException e) {
            throw failure("GET " + name, e);
        } catch (IOException e) {
            throw bodyBroke("GET " + name, e);
        }
    }

    /**
     * Reads {@code lengthBytes} bytes at {@code offsetBytes} of object {@code name} into {@code dst} at
     * {@code dstOffset}; a missing object reads as zeros (the caller's array is zeroed here).
     *
     * @throws IOException also when the object is shorter than the range (a chunk written by something else)
     */
    void getRange(String name, long offsetBytes, int lengthBytes, byte[] dst, int dstOffset) throws IOException {
        GetObjectRequest request = GetObjectRequest.builder().bucket(uri.bucket()).key(uri.key(name))
                .range("bytes=" + offsetBytes + "-" + (offsetBytes + lengthBytes - 1)).build();
        int read;
        try (ResponseInputStream<GetObjectResponse> in = client.getObject(request)) {
            read = readFully(in, dst, dstOffset, lengthBytes);
        } catch (S3Exception e) {
            if (e.statusCode() == 404) {
                java.util.Arrays.fill(dst, dstOffset, dstOffset + lengthBytes, (byte) 0);
                return;
            }
            throw failure("GET " + name, e);
        } catch (SdkException e) {
            throw failure("GET " + name, e);
        } catch (IOException e) {
            throw bodyBroke("GET " + name, e);
        }
        if (read != lengthBytes) {
            throw new IOException(where + ": object " + name + " is shorter than expected: " + read + " of "
                    + lengthBytes + " bytes at " + offsetBytes);
        }
    }

    /** Stores {@code body[0, lengthBytes)} as object {@code name}; success means it is durable. */
    void put(String name, byte[] body, int lengthBytes) throws IOException {
        try {
            client.putObject(PutObjectRequest.builder().bucket(uri.bucket()).key(uri.key(name))
                    .contentLength((long) lengthBytes).build(),
                    RequestBody.fromContentProvider(() -> new java.io.ByteArrayInputStream(body, 0, lengthBytes),
                            lengthBytes, "application/octet-stream"));
        } catch (SdkException e) {
            throw failure("PUT " + name, e);
        }
    }

    /**
     * Stores {@code body} as object {@code name} only if there is none ({@code etag} null: If-None-Match: *) or
     * if its entity tag is still {@code etag} (If-Match), in one conditional request.
     *
     * @return the new entity tag, or null if the condition failed (412 Precondition Failed, or 409 for a
     *     concurrent conditional write)
     */
    String putIf(String name, byte[] body, String etag) throws IOException {
        PutObjectRequest.Builder request = PutObjectRequest.builder().bucket(uri.bucket()).key(uri.key(name))
                .contentLength((long) body.length);
        request = etag == null ? request.ifNoneMatch("*") : request.ifMatch(etag);
        try {
            return client.putObject(request.build(), RequestBody.fromBytes(body)).eTag();
        } catch (S3Exception e) {
            if (e.statusCode() == 412 || e.statusCode() == 409) {
                return null;
            }
            throw failure("PUT " + name, e);
        } catch (SdkException e) {
            throw failure("PUT " + name, e);
        }
    }

    /** Deletes object {@code name}; deleting a missing object succeeds (S3 semantics). */
    void delete(String name) throws IOException {
        try {
            client.deleteObject(d -> d.bucket(uri.bucket()).key(uri.key(name)));
        } catch (SdkException e) {
            throw failure("DELETE " + name, e);
        }
    }

    private static int readFully(InputStream in, byte[] dst, int offset, int length) throws IOException {
        int done = 0;
        while (done < length) {
            int read = in.read(dst, offset + done, length - done);
            if (read < 0) {
                break;
            }
            done += read;
        }
        return done;
    }

    /**
     * The connection broke while the answer's body was read (reset, closed early, timed out): the SDK has handed the
     * stream over and does not retry that, so it is a {@link Transient} for {@link S3Io}.
     */
    private Transient bodyBroke(String what, IOException e) {
        return new Transient(where + ": " + what + ": the answer broke off: " + e.getClass().getSimpleName() + ": "
                + String.valueOf(e.getMessage()).replaceAll("\\s+", " ").strip(), e);
    }

    private IOException failure(String what, SdkException e) {
        String message = where + ": " + what + ": " + oneLine(e);
        return transientFailure(e) ? new Transient(message, e) : new IOException(message, e);
    }

    /**
     * True for a failure that may pass with time: no answer (connection refused, reset or timed out, the client
     * gave up on the call), a server error (5xx), throttling (429, 503 SlowDown), or a request the server timed out
     * (408; S3's 400 RequestTimeout for a body that came too slowly). Refusals (403, 404, other 4xx) stay.
     */
    static boolean transientFailure(SdkException e) {
        if (e instanceof S3Exception s3) {
            int status = s3.statusCode();
            String code = s3.awsErrorDetails() == null ? null : s3.awsErrorDetails().errorCode();
            return status >= 500 || status == 429 || status == 408 || "RequestTimeout".equals(code)
                    || "SlowDown".equals(code);
        }
        return e instanceof SdkClientException || e.retryable();
    }

    /** A failure that may pass with time ({@link #transientFailure}): worth retrying. */
    static final class Transient extends IOException {
        Transient(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** The SDK's message on one line, with the HTTP status and a hint for the common refusals. */
    static String oneLine(SdkException e) {
        String message = String.valueOf(e.getMessage()).replaceAll("\\s+", " ").strip();
        if (e instanceof S3Exception s3) {
            String code = s3.awsErrorDetails() == null ? null : s3.awsErrorDetails().errorCode();
            String hint = s3.statusCode() == 403 ? " (access denied: check the credentials and their rights)" : "";
            return "HTTP " + s3.statusCode() + (code == null ? "" : " " + code) + hint;
        }
        Throwable cause = e.getCause();
        while (cause != null && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause == null ? message : message + " (" + cause.getClass().getSimpleName() + ": "
                + String.valueOf(cause.getMessage()).replaceAll("\\s+", " ").strip() + ")";
    }

    @Override
    public void close() {
        client.close();
    }
}
