package io.blockcache.format;

import io.blockcache.format.CheckpointItem.BlockCrcRun;
import io.blockcache.format.CheckpointItem.ExtentRun;
import io.blockcache.format.CheckpointItem.GenerationSlice;
import io.blockcache.format.JournalRecord.ExtentInsert;
import io.blockcache.loop.Checks;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;

/**
 * Packs checkpoint items into {@link CheckpointChunk}s of at most {@code chunkBytesMax} each, one chunk per
 * call so a checkpoint writer can slice its work. An item that does not fit in the rest of a chunk is split
 * (a generation slice by buckets, an extent run by extents, a block CRC run by blocks) and continues in the next
 * chunk. Keeps the {@link CheckpointDigest} of the chunks produced.
 */
public final class CheckpointEncoder {
    private static final int GENERATION_SLICE_HEADER_BYTES = 1 + 4 + 4;
    private static final int EXTENT_RUN_HEADER_BYTES = 1 + 2 + 4;
    private static final int BLOCK_CRC_RUN_HEADER_BYTES = JournalRecordCodec.blockCrcsBytes(0);
    private static final int COVERAGE_RUN_HEADER_BYTES = 1 + 4;

    private final long checkpointStartSequence;
    private final int chunkBytesMax;
    private final Iterator<CheckpointItem> items;
    private final CheckpointDigest digest = new CheckpointDigest();
    private CheckpointItem pending;
    private long extentCount;

    /**
     * @param checkpointStartSequence journal sequence the checkpoint is consistent with
     * @param chunkBytesMax chunk size bound: a multiple of 4096, at least 4096 (normally the bucket size)
     * @param items the items, in order
     */
    public CheckpointEncoder(long checkpointStartSequence, int chunkBytesMax, Iterator<CheckpointItem> items) {
        ByteLayout.requireNonNegative("checkpointStartSequence", checkpointStartSequence);
        Checks.require(chunkBytesMax >= ByteLayout.BLOCK_BYTES && chunkBytesMax % ByteLayout.BLOCK_BYTES == 0,
                "chunkBytesMax must be a multiple of 4096 and at least 4096, got %d", chunkBytesMax);
        this.checkpointStartSequence = checkpointStartSequence;
        this.chunkBytesMax = chunkBytesMax;
        this.items = Objects.requireNonNull(items, "items");
    }

    /** True while items remain to be encoded. */
    public boolean hasNext() {
        return pending != null || items.hasNext();
    }

    /** Encodes the next chunk (a multiple of 4096 bytes, at most chunkBytesMax). */
    public byte[] nextChunk() {
        byte[] bytes = new byte[chunkBytesMax];
        int chunkBytes = nextChunk(bytes);
        return chunkBytes == bytes.length ? bytes : Arrays.copyOf(bytes, chunkBytes);
    }

    /**
     * Encodes the next chunk into the start of {@code bytes}, whatever they held before, and returns its length (a
     * multiple of 4096, at most chunkBytesMax): what {@link #nextChunk()} returns, without a new array per chunk.
     * The checkpoint writer reuses one array for every chunk of every checkpoint (a checkpoint's 256 KiB
     * arrays were most of what the loop thread still allocated under a steady stream of writes).
     *
     * @throws IllegalArgumentException if {@code bytes} is shorter than chunkBytesMax
     */
    public int nextChunk(byte[] bytes) {
        if (!hasNext()) {
            throw new NoSuchElementException("no checkpoint items left");
        }
        Checks.require(bytes.length >= chunkBytesMax, "a chunk needs %d bytes, got an array of %d", chunkBytesMax,
                bytes.length);
        Arrays.fill(bytes, 0, CheckpointChunk.HEADER_BYTES, (byte) 0);
        ByteBuffer buffer = ByteLayout.littleEndian(bytes);
        buffer.position(CheckpointChunk.HEADER_BYTES);
        int itemCount = 0;
        while (hasNext()) {
            CheckpointItem item = pending != null ? pending : items.next();
            pending = null;
            CheckpointItem rest = put(item, buffer);
            if (rest == item) {
                pending = item;
                break;
            }
            itemCount++;
            if (rest != null) {
                pending = rest;
                break;
            }
        }
        Checks.require(itemCount > 0, "chunkBytesMax %d cannot hold a single item", chunkBytesMax);
        int payloadBytes = buffer.position() - CheckpointChunk.HEADER_BYTES;
        int chunkBytes = (int) ByteLayout.roundUpToBlock(buffer.position());
        Arrays.fill(bytes, buffer.position(), chunkBytes, (byte) 0); // padding, over what an older chunk left
        buffer.put(ByteLayout.OFFSET_MAGIC, CheckpointChunk.MAGIC);
        buffer.putInt(ByteLayout.OFFSET_VERSION, ByteLayout.FORMAT_VERSION);
        buffer.putLong(CheckpointChunk.OFFSET_START_SEQUENCE, checkpointStartSequence);
        buffer.putInt(CheckpointChunk.OFFSET_CHUNK_INDEX, digest.chunkCount());
        buffer.putInt(CheckpointChunk.OFFSET_PAYLOAD_BYTES, payloadBytes);
        buffer.putInt(CheckpointChunk.OFFSET_ITEM_COUNT, itemCount);
        int crc = Crc.ofWithZeroField(bytes, 0, chunkBytes, CheckpointChunk.OFFSET_CRC);
        buffer.putInt(CheckpointChunk.OFFSET_CRC, crc);
        digest.add(crc);
        return chunkBytes;
    }

    /** The digest of the chunks produced so far: the checkpointCrc of the CheckpointDone record. */
    public int checkpointCrc() {
        return digest.value();
    }

    /** Chunks produced so far. */
    public int chunkCount() {
        return digest.chunkCount();
    }

    /** Extents encoded so far: the extentCount of the CheckpointDone record. */
    public long extentCount() {
        return extentCount;
    }

    /**
     * Writes as much of {@code item} as fits; returns null if all of it was written, {@code item} itself if
     * nothing was, or the remainder that continues in the next chunk.
     */
    private CheckpointItem put(CheckpointItem item, ByteBuffer buffer) {
        int room = buffer.remaining();
        return switch (item) {
            case GenerationSlice slice -> {
                int fit = Math.min(slice.generations().size(), (room - GENERATION_SLICE_HEADER_BYTES) / 2);
                if (fit <= 0) {
                    yield item;
                }
                buffer.put((byte) CheckpointItem.TYPE_GENERATION_SLICE);
                buffer.putInt(slice.firstBucket());
                buffer.putInt(fit);
                for (int i = 0; i < fit; i++) {
                    buffer.putShort((short) (int) slice.generations().get(i));
                }
                List<Integer> rest = slice.generations().subList(fit, slice.generations().size());
                yield rest.isEmpty() ? null : new GenerationSlice(slice.firstBucket() + fit, rest);
            }
            case ExtentRun run -> {
                boolean withEpochs = run.withEpochs();
                int extentBytes = JournalRecordCodec.EXTENT_BODY_BYTES
                        + (withEpochs ? JournalRecordCodec.EPOCH_BYTES : 0);
                int fit = Math.min(run.extents().size(), (room - EXTENT_RUN_HEADER_BYTES) / extentBytes);
                if (fit <= 0) {
                    yield item;
                }
                int type = withEpochs ? CheckpointItem.TYPE_EXTENT_RUN_EPOCHS : CheckpointItem.TYPE_EXTENT_RUN;
                buffer.put((byte) type);
                buffer.putShort((short) run.volumeId());
                buffer.putInt(fit);
                for (int i = 0; i < fit; i++) {
                    JournalRecordCodec.putExtentBody(run.extents().get(i), buffer);
                    if (withEpochs) {
                        buffer.putLong(run.extents().get(i).epoch());
                    }
                }
                extentCount += fit;
                List<ExtentInsert> rest = run.extents().subList(fit, run.extents().size());
                yield rest.isEmpty() ? null : new ExtentRun(run.volumeId(), rest);
            }
            case BlockCrcRun run -> {
                JournalRecord.BlockCrcs crcs = run.crcs();
                int fit = Math.min(crcs.count(), (room - BLOCK_CRC_RUN_HEADER_BYTES) / Integer.BYTES);
                if (fit <= 0) {
                    yield item;
                }
                int[] values = crcs.crcs();
                buffer.put((byte) CheckpointItem.TYPE_BLOCK_CRC_RUN);
                buffer.putInt(crcs.bucket());
                buffer.putShort((short) crcs.generation());
                buffer.putShort((short) crcs.firstBlock());
                buffer.putShort((short) fit);
                for (int i = 0; i < fit; i++) {
                    buffer.putInt(values[i]);
                }
                yield fit == values.length ? null : new BlockCrcRun(new JournalRecord.BlockCrcs(crcs.bucket(),
                        crcs.generation(), crcs.firstBlock() + fit, Arrays.copyOfRange(values, fit, values.length)));
            }
            case CheckpointItem.CoverageRun run -> {
                int entryBytes = JournalRecordCodec.CLEAN_COVERED_BYTES - 1;
                int fit = Math.min(run.covered().size(), (room - COVERAGE_RUN_HEADER_BYTES) / entryBytes);
                if (fit <= 0) {
                    yield item;
                }
                buffer.put((byte) CheckpointItem.TYPE_COVERAGE_RUN);
                buffer.putInt(fit);
                for (int i = 0; i < fit; i++) {
                    JournalRecordCodec.putCleanCovered(run.covered().get(i), buffer);
                }
                yield fit == run.covered().size() ? null
                        : new CheckpointItem.CoverageRun(run.covered().subList(fit, run.covered().size()));
            }
        };
    }
}
