package io.blockcache.cli;

import io.blockcache.device.IoMessages;
import java.io.IOException;
import java.io.StringReader;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * Reads a config file ({@code KEY=VALUE} lines in {@link Properties} syntax, UTF-8) and says in plain words why it
 * cannot: no such file, a directory, permission denied, not UTF-8 text at line N, a binary file — where the JDK's own
 * messages were the bare path, "Is a directory" or "Input length = 1".
 *
 * <p>Thread rule: any thread; blocking (reads the file).
 */
final class ConfigFile {
    /** Larger than any config file a person writes; a bigger one is refused, not read into memory. */
    static final long BYTES_MAX = 1 << 20;

    private ConfigFile() {
    }

    /**
     * The file's properties.
     *
     * @throws IOException with one line naming the file, the cause and what to do
     */
    static Properties read(Path file) throws IOException {
        if (Files.isDirectory(file)) {
            throw new IOException("the config file " + file + " is a directory; give --config a file of KEY=VALUE"
                    + " lines");
        }
        byte[] bytes;
        try {
            if (Files.size(file) > BYTES_MAX) {
                throw new IOException("the config file " + file + " has " + Files.size(file) + " bytes, more than a"
                        + " config file's " + BYTES_MAX + ": is it the right file?");
            }
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            if (e.getMessage() != null && e.getMessage().startsWith("the config file ")) {
                throw e;
            }
            throw new IOException("cannot read the config file " + IoMessages.describe(file, e), e);
        }
        Properties config = new Properties();
        config.load(new StringReader(text(file, bytes)));
        return config;
    }

    /** {@code bytes} as UTF-8 text; refused with the line of the first byte that is not (a NUL: a binary file). */
    private static String text(Path file, byte[] bytes) throws IOException {
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == 0) {
                throw new IOException("the config file " + file + " holds a NUL byte at line " + line(bytes, i)
                        + ": a binary file, not KEY=VALUE lines");
            }
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            int bad = firstBadByte(bytes);
            throw new IOException("the config file " + file + " is not UTF-8 text: byte 0x"
                    + String.format("%02X", bytes[bad] & 0xFF) + " at line " + line(bytes, bad)
                    + " (save it as UTF-8)", e);
        }
    }

    /** The offset of the first byte where UTF-8 decoding fails (found by decoding ever longer prefixes' lines). */
    private static int firstBadByte(byte[] bytes) {
        var decoder = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes);
        java.nio.CharBuffer out = java.nio.CharBuffer.allocate(bytes.length + 1);
        var result = decoder.decode(in, out, true);
        return result.isError() ? in.position() : 0;
    }

    private static int line(byte[] bytes, int offset) {
        int line = 1;
        for (int i = 0; i < offset; i++) {
            if (bytes[i] == '\n') {
                line++;
            }
        }
        return line;
    }
}
