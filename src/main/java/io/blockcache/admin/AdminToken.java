package io.blockcache.admin;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The bearer token the admin API requires ({@code --admin-token-file}; RFC 6750 §2.1): every request but the
 * dashboard page itself must carry {@code Authorization: Bearer TOKEN}. The token is compared in constant time
 * ({@link MessageDigest#isEqual}), so the time of a refusal tells nothing about how much of a guess was right.
 * Immutable: any thread.
 */
public final class AdminToken {
    /**
     * The shortest token accepted: 16 characters; {@code openssl rand -hex 32} gives 64. Shorter ones can be
     * guessed by a client that simply keeps trying.
     */
    public static final int CHARS_MIN = 16;
    /** The longest: far above any generated token, and it keeps a header line short. */
    public static final int CHARS_MAX = 1024;
    /** RFC 6750 §2.1's b64token: what may follow "Bearer " in a header. */
    private static final Pattern B64TOKEN = Pattern.compile("[A-Za-z0-9\\-._~+/]+=*");
    private static final String SCHEME = "Bearer ";

    private final byte[] token;

    private AdminToken(byte[] token) {
        this.token = token;
    }

    /**
     * A token from its text.
     *
     * @param source where it came from, for the error message (e.g. the file's name)
     * @throws IllegalArgumentException one line: empty, too short or too long, or characters a header cannot carry
     */
    public static AdminToken of(String text, String source) {
        Objects.requireNonNull(text, "text");
        if (text.isEmpty()) {
            throw new IllegalArgumentException(source + " holds no token (it is empty); write one, e.g."
                    + " openssl rand -hex 32 > FILE");
        }
        if (text.length() < CHARS_MIN || text.length() > CHARS_MAX) {
            throw new IllegalArgumentException(source + ": the token has " + text.length() + " characters; it must"
                    + " have " + CHARS_MIN + " to " + CHARS_MAX + " (e.g. openssl rand -hex 32)");
        }
        if (!B64TOKEN.matcher(text).matches()) {
            throw new IllegalArgumentException(source + ": the token may hold only letters, digits and -._~+/ (and"
                    + " = at the end), as an HTTP bearer token must (RFC 6750); one token on one line");
        }
        return new AdminToken(text.getBytes(StandardCharsets.US_ASCII));
    }

    /**
     * True if {@code authorization} (the request's Authorization header, or null) is {@code Bearer} and this token.
     * The scheme is matched without regard to case (RFC 7235 §2.1); the token exactly, in constant time.
     */
    public boolean accepts(String authorization) {
        if (authorization == null || authorization.length() < SCHEME.length()
                || !authorization.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) {
            return false;
        }
        byte[] offered = authorization.substring(SCHEME.length()).strip().getBytes(StandardCharsets.UTF_8);
        return MessageDigest.isEqual(offered, token);
    }

    /** The header value a client sends: {@code Bearer TOKEN}. */
    public String headerValue() {
        return SCHEME + new String(token, StandardCharsets.US_ASCII);
    }

    /** Never the token itself: it must not reach a log through a toString. */
    @Override
    public String toString() {
        return "AdminToken[" + token.length + " characters]";
    }
}
