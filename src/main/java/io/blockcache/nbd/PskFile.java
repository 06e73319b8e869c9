package io.blockcache.nbd;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads a PSK file in the format of GnuTLS's {@code psktool}, which libnbd's {@code tls-psk-file}, qemu's
 * {@code tls-creds-psk} and nbdkit's {@code --tls-psk} read too: one {@code username:hexkey} per line, e.g.
 * {@code alice:8f2ad4c6...}. Blank lines are skipped. Every problem is an {@link IllegalArgumentException} with
 * one line naming the file and line.
 *
 * <p>Thread rule: any thread (start-up only).
 */
final class PskFile {
    /** Identities per file: a key file for a handful of clients; this bounds a wrong file. */
    static final int IDENTITIES_MAX = 4096;
    /** A key shorter than 128 bits is a mistake, not a secret (psktool makes 256-bit keys by default). */
    static final int KEY_BYTES_MIN = 16;
    /** RFC 4279 §5.3: PSKs up to 64 bytes MUST be supported; longer ones are not portable. */
    static final int KEY_BYTES_MAX = 64;
    /** RFC 4279 §5.3: identities up to 128 bytes MUST be supported. */
    static final int IDENTITY_BYTES_MAX = 128;

    private PskFile() {
    }

    /** Identity to key, from {@code file}; at least one. */
    static Map<String, byte[]> read(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalArgumentException("--tls-psk " + file + ": cannot read it (" + e.getMessage() + ")");
        }
        Map<String, byte[]> keys = new TreeMap<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty()) {
                continue;
            }
            String where = "--tls-psk " + file + " line " + (i + 1) + ": ";
            int colon = line.indexOf(':');
            if (colon <= 0 || colon == line.length() - 1) {
                throw new IllegalArgumentException(where + "must be username:hexkey (as psktool writes)");
            }
            String identity = line.substring(0, colon);
            if (identity.getBytes(StandardCharsets.UTF_8).length > IDENTITY_BYTES_MAX) {
                throw new IllegalArgumentException(where + "the username is longer than " + IDENTITY_BYTES_MAX
                        + " bytes");
            }
            byte[] key = hexKey(line.substring(colon + 1), where);
            if (keys.put(identity, key) != null) {
                throw new IllegalArgumentException(where + "username \"" + identity + "\" is given twice");
            }
            if (keys.size() > IDENTITIES_MAX) {
                throw new IllegalArgumentException(where + "more than " + IDENTITIES_MAX + " identities");
            }
        }
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("--tls-psk " + file + ": no username:hexkey line in it");
        }
        return keys;
    }

    private static byte[] hexKey(String hex, String where) {
        byte[] key;
        try {
            key = HexFormat.of().parseHex(hex);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(where + "the key must be hexadecimal digits, an even number of them");
        }
        if (key.length < KEY_BYTES_MIN || key.length > KEY_BYTES_MAX) {
            throw new IllegalArgumentException(where + "the key is " + key.length + " bytes; it must be "
                    + KEY_BYTES_MIN + ".." + KEY_BYTES_MAX + " (psktool -s 32 makes a good one)");
        }
        return key;
    }
}
