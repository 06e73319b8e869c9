package io.blockcache.cli;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Replaces a small state file so that a crash leaves the old or the new one whole: written to a temporary file beside
 * it, forced, renamed over it, and the directory forced (the rename is durable only then).
 *
 * <p>Thread rule: any thread but a loop's (blocking file I/O).
 */
final class AtomicFile {
    private AtomicFile() {
    }

    static void replace(Path file, byte[] content) throws IOException {
        Path directory = file.toAbsolutePath().getParent();
        Path temporary = directory.resolve(file.getFileName() + ".tmp");
        try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer bytes = ByteBuffer.wrap(content);
            while (bytes.hasRemaining()) {
                channel.write(bytes);
            }
            channel.force(true);
        }
        Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
            dir.force(true);
        }
    }
}
