package io.blockcache.format;

import io.blockcache.loop.Checks;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;
import java.util.UUID;

/**
 * One block of a backing device's damage map: a bit per region of the volume, set while the region may hold data
 * that is newer in the cache than on the backing device (docs/FORMAT.md §4.1). Each block has two copies
 * ({@link DamageMapGeometry}); the valid copy with the higher sequence is the block ({@link #choose}).
 *
 * <pre>
 *  DamageMapBlock: one 4 KiB block, little-endian
 *   offset  size  field
 *        0     8  magic "BCDAMAGE"
 *        8     4  version (1)
 *       12     8  sequence           >= 1, +1 on every write of this block (either copy)
 *       20    16  backingUuid        the backing header's; a map left by an earlier format is not this one
 *       36     8  regionBytes        bytes of volume per bit, a power of two >= 1 MiB
 *       44     4  blockIndex         this block's place in the map
 *       48     4  blockCount         blocks in the map
 *       52     4  flags              bit 0: the backing is consistent as of epoch (ordering=epochs); others 0
 *       56     8  epoch              with flag bit 0: the flush epoch the backing is consistent as of; else 0
 *       64  4024  bits               region blockIndex * 32192 + i is bit i % 8 of byte 64 + i / 8
 *     4088     4  zero
 *     4092     4  CRC32C of bytes [0, 4092)
 * </pre>
 *
 * @param sequence write number of this block, at least 1
 * @param backingUuid the backing device's identity
 * @param regionBytes bytes of volume per bit
 * @param blockIndex this block's index
 * @param blockCount blocks in the map
 * @param flags {@link #FLAG_CONSISTENT_AS_OF_EPOCH} or 0
 * @param epoch the epoch of {@link #FLAG_CONSISTENT_AS_OF_EPOCH}, or 0
 * @param words the bits, {@link #WORDS} longs, region i of the block at bit {@code i % 64} of word {@code i / 64}
 */
public record DamageMapBlock(long sequence, UUID backingUuid, long regionBytes, int blockIndex, int blockCount,
                             int flags, long epoch, long[] words) {
    /** Encoded size: one 4 KiB block. */
    public static final int BYTES = ByteLayout.BLOCK_BYTES;
    /** Longs of bits per block. */
    public static final int WORDS = 503;
    /** Regions per block: 4024 bytes of bits. */
    public static final int REGIONS_PER_BLOCK = WORDS * Long.SIZE;
    /**
     * Written for volumes with ordering=epochs (docs/WRITEBACK.md "When a device fails"): the backing device holds
     * every write up to a flush epoch and part of the next at most, so after a cache loss it is consistent, only
     * older; no region is stale. Trusted only if every block of the map carries it; the bits stay exact beside it.
     */
    public static final int FLAG_CONSISTENT_AS_OF_EPOCH = 1;

    static final byte[] MAGIC = ByteLayout.magic("BCDAMAGE");
    static final int OFFSET_SEQUENCE = 12;
    static final int OFFSET_BACKING_UUID = 20;
    static final int OFFSET_REGION_BYTES = 36;
    static final int OFFSET_BLOCK_INDEX = 44;
    static final int OFFSET_BLOCK_COUNT = 48;
    static final int OFFSET_FLAGS = 52;
    static final int OFFSET_EPOCH = 56;
    static final int OFFSET_BITS = 64;
    static final int OFFSET_CRC = BYTES - Integer.BYTES;
    private static final String NAME = "damage map block";

    /** Validates every field. */
    public DamageMapBlock {
        Objects.requireNonNull(backingUuid, "backingUuid");
        Objects.requireNonNull(words, "words");
        Checks.require(sequence >= 1, "sequence must be at least 1, got %d", sequence);
        Checks.require(regionBytes >= DamageMapGeometry.REGION_BYTES_MIN && ByteLayout.isPowerOfTwo(regionBytes),
                "regionBytes must be a power of two of at least 1 MiB, got %d", regionBytes);
        Checks.require(blockIndex >= 0 && blockIndex < blockCount, "blockIndex %d outside a map of %d blocks",
                blockIndex, blockCount);
        Checks.require((flags & ~FLAG_CONSISTENT_AS_OF_EPOCH) == 0, "unknown flags %x", flags);
        Checks.require(words.length == WORDS, "need %d words of bits, got %d", WORDS, words.length);
    }

    /** True if region {@code regionInBlock} of this block is marked. */
    public boolean marked(int regionInBlock) {
        return (words[regionInBlock >>> 6] & (1L << regionInBlock)) != 0;
    }

    /** Encodes this block into a new 4 KiB block. */
    public byte[] encode() {
        byte[] bytes = new byte[BYTES];
        ByteBuffer buffer = BlockEnvelope.open(bytes, MAGIC);
        buffer.putLong(OFFSET_SEQUENCE, sequence);
        ByteLayout.putUuid(buffer, OFFSET_BACKING_UUID, backingUuid);
        buffer.putLong(OFFSET_REGION_BYTES, regionBytes);
        buffer.putInt(OFFSET_BLOCK_INDEX, blockIndex);
        buffer.putInt(OFFSET_BLOCK_COUNT, blockCount);
        buffer.putInt(OFFSET_FLAGS, flags);
        buffer.putLong(OFFSET_EPOCH, epoch);
        for (int w = 0; w < WORDS; w++) {
            buffer.putLong(OFFSET_BITS + w * Long.BYTES, words[w]);
        }
        return BlockEnvelope.seal(bytes, OFFSET_CRC);
    }

    /** Decodes the block at {@code bytes[offsetBytes..]}; never throws on bad bytes. */
    public static DecodeResult<DamageMapBlock> decode(byte[] bytes, int offsetBytes) {
        return BlockEnvelope.decode(bytes, offsetBytes, BYTES, MAGIC, OFFSET_CRC, NAME, OFFSET_SEQUENCE, reader -> {
            long sequence = reader.seek(OFFSET_SEQUENCE).u64("sequence");
            UUID backingUuid = reader.seek(OFFSET_BACKING_UUID).uuid("backingUuid");
            long regionBytes = reader.seek(OFFSET_REGION_BYTES).u64("regionBytes");
            int blockIndex = reader.seek(OFFSET_BLOCK_INDEX).u32AsInt("blockIndex");
            int blockCount = reader.seek(OFFSET_BLOCK_COUNT).u32AsInt("blockCount");
            int flags = reader.seek(OFFSET_FLAGS).u32AsInt("flags");
            long epoch = reader.seek(OFFSET_EPOCH).u64("epoch");
            ByteBuffer buffer = ByteLayout.littleEndian(bytes);
            long[] words = new long[WORDS];
            for (int w = 0; w < WORDS; w++) {
                words[w] = buffer.getLong(offsetBytes + OFFSET_BITS + w * Long.BYTES);
            }
            return new DamageMapBlock(sequence, backingUuid, regionBytes, blockIndex, blockCount,
                    flags, epoch, words);
        });
    }

    /**
     * The block a reader uses: of the two copies of block {@code blockIndex}, each decoded from
     * {@code area[(2 * blockIndex + copy) * 4096 ..]}, the valid one with the higher sequence (A on a tie) that
     * belongs to this backing device and geometry. Why that is safe: the writer writes one copy at a time, with FUA,
     * alternating, and starts the next write only after the last completed ({@code volume.DamageMapBlockWriter}),
     * so a torn write destroys at most the copy it was writing and the other holds the previous version.
     *
     * @param area the map area as read from the backing device, starting at
     *     {@link DamageMapGeometry#FIRST_BLOCK_OFFSET_BYTES}
     * @return the chosen copy, or a reason when neither is usable
     */
    public static Chosen choose(byte[] area, UUID backingUuid, DamageMapGeometry geometry, int blockIndex) {
        Chosen best = null;
        StringBuilder why = new StringBuilder();
        for (int copy = 0; copy < DamageMapGeometry.COPIES; copy++) {
            int offset = (DamageMapGeometry.COPIES * blockIndex + copy) * BYTES;
            DecodeResult<DamageMapBlock> decoded = decode(area, offset);
            String problem = decoded.isOk() ? mismatch(decoded.value(), backingUuid, geometry, blockIndex)
                    : decoded.error().message();
            if (problem != null) {
                why.append(why.isEmpty() ? "" : "; ").append("copy ").append(copy == 0 ? 'A' : 'B').append(": ")
                        .append(problem);
            } else if (best == null || decoded.value().sequence() > best.block().sequence()) {
                best = new Chosen(decoded.value(), copy, null);
            }
        }
        return best != null ? best : new Chosen(null, -1, "block " + blockIndex + " has no valid copy (" + why + ")");
    }

    private static String mismatch(DamageMapBlock block, UUID backingUuid, DamageMapGeometry geometry, int index) {
        if (!block.backingUuid().equals(backingUuid)) {
            return "written for backing device " + block.backingUuid() + ", this is " + backingUuid;
        }
        if (block.blockIndex() != index || block.blockCount() != geometry.blockCount()
                || block.regionBytes() != geometry.regionBytes()) {
            return "geometry (block " + block.blockIndex() + " of " + block.blockCount() + ", regions of "
                    + block.regionBytes() + " bytes) is not block " + index + " of " + geometry.blockCount()
                    + " with regions of " + geometry.regionBytes() + " bytes";
        }
        return null;
    }

    /**
     * A block chosen from its two copies.
     *
     * @param block the block, or null when neither copy is usable
     * @param copy which copy it came from (0 = A, 1 = B), or -1
     * @param problem why neither copy is usable, or null
     */
    public record Chosen(DamageMapBlock block, int copy, String problem) {
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof DamageMapBlock that && sequence == that.sequence
                && backingUuid.equals(that.backingUuid) && regionBytes == that.regionBytes
                && blockIndex == that.blockIndex && blockCount == that.blockCount && flags == that.flags
                && epoch == that.epoch && Arrays.equals(words, that.words);
    }

    @Override
    public int hashCode() {
        return Objects.hash(sequence, backingUuid, regionBytes, blockIndex, blockCount, flags, epoch)
                * 31 + Arrays.hashCode(words);
    }

    @Override
    public String toString() {
        return "DamageMapBlock[sequence=" + sequence + ", block " + blockIndex + " of " + blockCount + ", regions of "
                + regionBytes + " bytes, flags " + flags + ", epoch " + epoch + "]";
    }
}
