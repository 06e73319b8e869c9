package io.blockcache.host;

import io.blockcache.backing.S3Backing;
import io.blockcache.format.ExistingMetadata;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.function.Function;

/**
 * Refuses to attach a backing store that holds blockcache metadata to a cache that is about to be formatted,
 * unless the user said to overwrite it ({@code --force}): the new backing header would replace the one that ties
 * the store to its cache set, whose dirty data would then never be written back (docs/FORMAT.md §4). {@code format}
 * refuses the same stores; this is the same refusal for {@code serve} and {@code embed} with a new cache file.
 *
 * <p>Blocking reads of files; any thread but a loop's.
 */
public final class MetadataGuard {
    private final String cacheFile;
    private final boolean force;

    /**
     * @param cacheFile the new cache, for the message
     * @param force true to overwrite whatever the stores hold
     */
    MetadataGuard(Path cacheFile, boolean force) {
        this.cacheFile = cacheFile.toString();
        this.force = force;
    }

    /**
     * What blockcache metadata the file at {@code path} holds, as a phrase ("holds ..."), or null if none.
     *
     * @throws IOException if the file cannot be read
     */
    public static String describe(Path path) throws IOException {
        return ExistingMetadata.describe(head(path));
    }

    /** The first {@link ExistingMetadata#HEAD_BYTES} of the file at {@code path} (zeros past its end). */
    static byte[] head(Path path) throws IOException {
        ByteBuffer head = ByteBuffer.allocate(ExistingMetadata.HEAD_BYTES);
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            while (head.hasRemaining() && channel.read(head, head.position()) >= 0) {
                // read until full or end of file; a short file leaves zeroes, which match no magic
            }
        }
        return head.array();
    }

    /** Refuses an existing backing file of export {@code name} that holds blockcache metadata. */
    void checkFile(String name, Path path) throws HostException {
        if (force) {
            return;
        }
        String contents;
        try {
            contents = describe(path);
        } catch (IOException e) {
            throw new HostException("cannot read the backing file " + path + " of export \"" + name + "\": "
                    + e.getMessage());
        }
        refuseIf(name, path.toString(), contents);
    }

    /** Refuses a remote store of export {@code name} whose first bytes {@code head} hold blockcache metadata. */
    void checkHead(String name, String display, byte[] head) throws HostException {
        if (!force) {
            refuseIf(name, display, ExistingMetadata.describe(head));
        }
    }

    /**
     * The same check for an existing {@code s3://} volume, asked before its owner record is taken. Taking a volume
     * over from another cache ({@code --take-over}) with a new cache is the documented failover for a node whose
     * cache device is lost (docs/SCALE.md "When a node fails", case 3), so it needs no {@code --force}.
     */
    S3Backing.AttachGuard s3(String name, String display) {
        return s3Guard(force, true, contents -> message(null, display, contents));
    }

    /**
     * An {@link S3Backing.AttachGuard} that refuses a volume whose head holds blockcache metadata.
     *
     * @param force true to refuse nothing (and skip the GET)
     * @param takeOverPasses true to let a take-over from another owner through
     * @param refusal the one-line refusal, given what the head {@code holds ...}
     */
    public static S3Backing.AttachGuard s3Guard(boolean force, boolean takeOverPasses,
                                                Function<String, String> refusal) {
        return new S3Backing.AttachGuard() {
            @Override
            public int headBytes() {
                return force ? 0 : ExistingMetadata.HEAD_BYTES;
            }

            @Override
            public String refusal(byte[] head, boolean takingOver) {
                String contents = ExistingMetadata.describe(head);
                return contents == null || takingOver && takeOverPasses ? null : refusal.apply(contents);
            }
        };
    }

    private void refuseIf(String name, String display, String contents) throws HostException {
        if (contents != null) {
            throw new HostException(message(name, display, contents));
        }
    }

    /** The refusal; {@code name} null where the caller's prefix names the export already. */
    private String message(String name, String display, String contents) {
        return "refusing to attach " + display + (name == null ? "" : " as export \"" + name + "\"")
                + " to the new cache " + cacheFile
                + ": it " + contents + ", which the new cache would overwrite (that cache set's dirty data would"
                + " never be written back); give that cache set's file with --cache, or --force to overwrite it";
    }
}
