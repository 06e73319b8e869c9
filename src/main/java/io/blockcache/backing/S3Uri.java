package io.blockcache.backing;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A parsed {@code s3://bucket/prefix}: the bucket and the key prefix under which one volume's objects live
 * ({@code prefix/volume}, {@code prefix/owner}, {@code prefix/chunk-%016x}; docs/FORMAT.md §4.3).
 *
 * @param bucket bucket name, 3..63 characters of lower-case letters, digits, dots and hyphens (the S3 rules for
 *     bucket names, docs.aws.amazon.com "Bucket naming rules")
 * @param prefix key prefix without leading or trailing slash; empty means the bucket's root
 */
public record S3Uri(String bucket, String prefix) {
    private static final Pattern BUCKET = Pattern.compile("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]");
    /** Longest prefix accepted: S3 keys are at most 1024 bytes, and the longest name appended is 23 characters. */
    static final int PREFIX_CHARS_MAX = 900;

    public S3Uri {
        Objects.requireNonNull(bucket, "bucket");
        Objects.requireNonNull(prefix, "prefix");
        if (!BUCKET.matcher(bucket).matches()) {
            throw new IllegalArgumentException("\"" + bucket + "\" is not a valid S3 bucket name (3-63 lower-case "
                    + "letters, digits, dots and hyphens)");
        }
        if (prefix.startsWith("/") || prefix.endsWith("/") || prefix.contains("//")) {
            throw new IllegalArgumentException("S3 prefix \"" + prefix + "\" must not start or end with / or hold //");
        }
        if (prefix.length() > PREFIX_CHARS_MAX) {
            throw new IllegalArgumentException("S3 prefix longer than " + PREFIX_CHARS_MAX + " characters");
        }
    }

    /**
     * Parses {@code s3://bucket[/prefix]}; a trailing slash is dropped.
     *
     * @throws IllegalArgumentException with a one-line message naming the text and what is wrong
     */
    public static S3Uri parse(String text) {
        if (!text.regionMatches(true, 0, "s3://", 0, "s3://".length())) {
            throw new IllegalArgumentException("not an S3 URI \"" + text + "\": expected s3://bucket/prefix");
        }
        String rest = text.substring("s3://".length());
        if (rest.contains("?") || rest.contains("#")) {
            throw new IllegalArgumentException("S3 URI \"" + text + "\": query and fragment are not supported; give "
                    + "the endpoint with --s3-endpoint");
        }
        int slash = rest.indexOf('/');
        String bucket = slash < 0 ? rest : rest.substring(0, slash);
        String prefix = slash < 0 ? "" : rest.substring(slash + 1);
        while (prefix.endsWith("/")) {
            prefix = prefix.substring(0, prefix.length() - 1);
        }
        try {
            return new S3Uri(bucket, prefix);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("S3 URI \"" + text + "\": " + e.getMessage());
        }
    }

    /** The key of the object {@code name} of this volume: {@code prefix/name}, or {@code name} at the root. */
    public String key(String name) {
        return prefix.isEmpty() ? name : prefix + "/" + name;
    }

    @Override
    public String toString() {
        return "s3://" + bucket + (prefix.isEmpty() ? "" : "/" + prefix);
    }
}
