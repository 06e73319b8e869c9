package io.blockcache.backing;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * The table of backing-store URI schemes: {@code file:PATH} (or a plain path, files and block devices alike) and
 * {@code nbd://host[:port]/export} and {@code s3://bucket/prefix}. A new kind of backing store is one more row in
 * {@link #SCHEMES}, one more {@link BackingLocation} record, and its
 * opener in the CLI.
 *
 * <p>Pure functions; any thread.
 */
public final class BackingUris {
    /** Scheme (lower case, without the colon) to parser of the whole text. Insertion order is the help's order. */
    private static final Map<String, Function<String, BackingLocation>> SCHEMES = new LinkedHashMap<>();

    static {
        SCHEMES.put("file", text -> new BackingLocation.File(path(text.substring("file:".length()), text)));
        SCHEMES.put("nbd", text -> new BackingLocation.Nbd(NbdUri.parse(text)));
        SCHEMES.put("s3", text -> new BackingLocation.S3(S3Uri.parse(text), S3Options.DEFAULTS));
    }

    private BackingUris() {
    }

    /** The schemes understood, for messages: "file, nbd, s3". */
    public static String schemes() {
        return String.join(", ", SCHEMES.keySet());
    }

    /**
     * Parses a backing location: a URI of a known scheme, or else a plain path.
     *
     * @throws IllegalArgumentException with a one-line message for an unknown scheme or a malformed URI
     */
    public static BackingLocation parse(String text) {
        String scheme = scheme(text);
        if (scheme == null) {
            return new BackingLocation.File(path(text, text));
        }
        Function<String, BackingLocation> parser = SCHEMES.get(scheme.toLowerCase(Locale.ROOT));
        if (parser == null) {
            throw new IllegalArgumentException("backing \"" + text + "\": unknown scheme \"" + scheme
                    + ":\"; known: " + schemes() + " (or a plain path)");
        }
        return parser.apply(text);
    }

    /**
     * The scheme of {@code text} if it starts like a URI ({@code letters:} followed by {@code //}, or
     * {@code file:}); null for a plain path (including one with a colon later in it, or a Windows drive letter).
     */
    private static String scheme(String text) {
        int colon = text.indexOf(':');
        if (colon < 2) {
            return null;
        }
        String candidate = text.substring(0, colon);
        if (!candidate.chars().allMatch(c -> c < 128 && (Character.isLetterOrDigit(c) || c == '+' || c == '-'))
                || !Character.isLetter(candidate.charAt(0))) {
            return null;
        }
        boolean fileScheme = candidate.equalsIgnoreCase("file");
        return fileScheme || text.startsWith("//", colon + 1) ? candidate : null;
    }

    private static Path path(String path, String text) {
        String plain = path.startsWith("//") ? path.substring(2) : path; // file://PATH as well as file:PATH
        if (plain.isEmpty()) {
            throw new IllegalArgumentException("backing \"" + text + "\": empty path");
        }
        try {
            return Path.of(plain);
        } catch (InvalidPathException e) {
            throw new IllegalArgumentException("backing \"" + text + "\": not a valid path: " + e.getMessage());
        }
    }
}
