package io.blockcache.backing;

import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.Properties;
import java.util.UUID;

/**
 * The metadata object {@code prefix/volume} of an {@code s3://} volume (docs/FORMAT.md §4.3): what makes a prefix
 * a blockcache volume and fixes its geometry. Written once when the volume is created, read and checked at every
 * open. A text of {@code key=value} lines:
 *
 * <pre>
 * format=blockcache-s3-volume
 * version=1
 * size-bytes=8589934592        the volume's size; a multiple of 4096
 * chunk-bytes=4194304          the size of every chunk object but perhaps the last; a power of two, 64 KiB..64 MiB
 * volume-uuid=...              names this volume in messages
 * </pre>
 *
 * @param sizeBytes the volume size in bytes
 * @param chunkBytes the chunk object size in bytes
 * @param volumeUuid the volume's identity
 */
public record S3Volume(long sizeBytes, int chunkBytes, UUID volumeUuid) {
    /** The object's name under the prefix. */
    public static final String OBJECT_NAME = "volume";
    /** The value of {@code format}: anything else under that name is not ours. */
    static final String FORMAT = "blockcache-s3-volume";
    static final int VERSION = 1;
    /**
     * Default chunk: 4 MiB. A chunk is the unit of every PUT, so it trades the cost of a request (S3 charges per
     * request and each has ~10-50 ms latency) against the cost of rewriting a whole chunk for a small write
     * (read-modify-write) and the staging memory; 4 MiB is also the part size most S3 tools default to
     * (docs/FORMAT.md §4.3 has the reasoning).
     */
    public static final int CHUNK_BYTES_DEFAULT = 4 << 20;
    static final int CHUNK_BYTES_MIN = 64 << 10;
    static final int CHUNK_BYTES_MAX = 64 << 20;
    /** Volume sizes are multiples of this (the largest logical block a cache uses). */
    static final int SIZE_ALIGNMENT_BYTES = 4096;
    /** The largest volume: 2^50 bytes (1 PiB); chunk numbers then fit the 16 hex digits of the key many times over. */
    static final long SIZE_BYTES_MAX = 1L << 50;

    public S3Volume {
        if (sizeBytes <= 0 || sizeBytes % SIZE_ALIGNMENT_BYTES != 0 || sizeBytes > SIZE_BYTES_MAX) {
            throw new IllegalArgumentException("an S3 volume's size must be a positive multiple of "
                    + SIZE_ALIGNMENT_BYTES + " bytes up to 1 PiB, got " + sizeBytes);
        }
        if (Integer.bitCount(chunkBytes) != 1 || chunkBytes < CHUNK_BYTES_MIN || chunkBytes > CHUNK_BYTES_MAX) {
            throw new IllegalArgumentException("the chunk size must be a power of two from 64 KiB to 64 MiB, got "
                    + chunkBytes);
        }
        if (volumeUuid == null) {
            throw new IllegalArgumentException("a volume UUID is required");
        }
    }

    /** The name of chunk {@code index}'s object: {@code chunk-%016x}, so keys list in LBA order. */
    public static String chunkName(long index) {
        return String.format("chunk-%016x", index);
    }

    /** Chunks in the volume (the last may be shorter). */
    public long chunkCount() {
        return (sizeBytes + chunkBytes - 1) / chunkBytes;
    }

    /** The bytes of chunk {@code index}: the chunk size, or what is left for the last. */
    public int chunkLengthBytes(long index) {
        return (int) Math.min(chunkBytes, sizeBytes - index * chunkBytes);
    }

    /** The object's contents. */
    byte[] encode() {
        return ("format=" + FORMAT + "\nversion=" + VERSION + "\nsize-bytes=" + sizeBytes + "\nchunk-bytes="
                + chunkBytes + "\nvolume-uuid=" + volumeUuid + "\n").getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Reads the object's contents.
     *
     * @param where the volume, for messages
     * @throws IOException with one line saying what is wrong: not ours, a newer version, a bad value
     */
    static S3Volume decode(byte[] body, String where) throws IOException {
        Properties properties = new Properties();
        properties.load(new StringReader(new String(body, StandardCharsets.UTF_8)));
        if (!FORMAT.equals(properties.getProperty("format"))) {
            throw new IOException(where + ": the object " + OBJECT_NAME + " is not blockcache volume metadata "
                    + "(format=" + properties.getProperty("format") + ")");
        }
        if (!String.valueOf(VERSION).equals(properties.getProperty("version"))) {
            throw new IOException(where + ": volume metadata version " + properties.getProperty("version")
                    + " is not supported (this build reads version " + VERSION + ")");
        }
        try {
            return new S3Volume(Long.parseLong(properties.getProperty("size-bytes", "")),
                    Integer.parseInt(properties.getProperty("chunk-bytes", "")),
                    UUID.fromString(properties.getProperty("volume-uuid", "")));
        } catch (IllegalArgumentException e) {
            throw new IOException(where + ": bad volume metadata: " + e.getMessage());
        }
    }
}
