package io.blockcache.cli;

import io.blockcache.admin.AdminToken;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;

/**
 * Reads the admin API's bearer token from {@code --admin-token-file FILE}, for {@code serve} and for the commands
 * that talk to it: one token on one line (a final newline is allowed), in a file no one but its owner may read or
 * change. Like ssh with a private key ("Permissions 0644 ... are too open"), a file with any group or other
 * permission is refused, since anyone who can read it can drive the cache. Each problem is one line.
 */
final class AdminTokenFile {
    /** The flag and config key. */
    static final String KEY = "admin-token-file";
    /** More than any token ({@link AdminToken#CHARS_MAX}) and its newline: a larger file is not a token file. */
    private static final int FILE_BYTES_MAX = AdminToken.CHARS_MAX + 2;
    private static final Set<PosixFilePermission> OWNER_ONLY = EnumSet.of(PosixFilePermission.OWNER_READ,
            PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE);

    private AdminTokenFile() {
    }

    /**
     * Reads and checks the token.
     *
     * @throws IllegalArgumentException one line naming the file: missing or unreadable, open to group or others,
     *     empty, several lines, too short or long, characters a header cannot carry
     */
    static AdminToken read(Path file) {
        String source = "--" + KEY + " " + file;
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException(source + ": " + (Files.exists(file) ? "not a regular file"
                    : "no such file") + " (write a token with: (umask 077; openssl rand -hex 32 > " + file + "))");
        }
        checkPermissions(file, source);
        byte[] bytes;
        try (InputStream in = Files.newInputStream(file)) {
            bytes = in.readNBytes(FILE_BYTES_MAX + 1);
        } catch (IOException e) {
            throw new IllegalArgumentException(source + ": cannot read it: " + e.getMessage());
        }
        if (bytes.length > FILE_BYTES_MAX) {
            throw new IllegalArgumentException(source + ": longer than a token can be (" + AdminToken.CHARS_MAX
                    + " characters); is it the right file?");
        }
        String text = new String(bytes, StandardCharsets.UTF_8);
        if (text.endsWith("\n")) {
            text = text.substring(0, text.length() - (text.endsWith("\r\n") ? 2 : 1));
        }
        if (text.contains("\n")) {
            throw new IllegalArgumentException(source + ": more than one line; the file holds one token on one"
                    + " line");
        }
        return AdminToken.of(text, source);
    }

    private static void checkPermissions(Path file, String source) {
        PosixFileAttributeView posix = Files.getFileAttributeView(file, PosixFileAttributeView.class);
        if (posix == null) {
            return; // no POSIX permissions here (e.g. Windows): nothing to check
        }
        Set<PosixFilePermission> permissions;
        try {
            permissions = posix.readAttributes().permissions();
        } catch (IOException e) {
            throw new IllegalArgumentException(source + ": cannot read its permissions: " + e.getMessage());
        }
        if (!OWNER_ONLY.containsAll(permissions)) {
            throw new IllegalArgumentException(source + ": permissions " + PosixFilePermissions.toString(permissions)
                    + " are too open (group or others may use it); run chmod 600 " + file);
        }
    }
}
