package io.blockcache.interop;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Random;

/** Seeded random files for round trips, and the checksum that compares them. */
final class RandomFiles {
    private RandomFiles() {
    }

    /** Writes {@code bytes} seeded random bytes to {@code file} and returns it. */
    static Path write(Path file, int bytes, long seed) throws IOException {
        byte[] data = new byte[bytes];
        new Random(seed).nextBytes(data);
        Files.write(file, data);
        return file;
    }

    /** SHA-256 of the first {@code bytes} bytes of {@code file}, in hex (fails if the file is shorter). */
    static String sha256(Path file, long bytes) throws IOException {
        MessageDigest digest;
        try {
            digest = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
        byte[] buffer = new byte[1 << 16];
        long left = bytes;
        try (InputStream in = Files.newInputStream(file)) {
            while (left > 0) {
                int read = in.read(buffer, 0, (int) Math.min(buffer.length, left));
                if (read < 0) {
                    throw new IOException(file + " is shorter than " + bytes + " bytes");
                }
                digest.update(buffer, 0, read);
                left -= read;
            }
        }
        return HexFormat.of().formatHex(digest.digest());
    }
}
