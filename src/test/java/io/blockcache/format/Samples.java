package io.blockcache.format;

import io.blockcache.format.JournalRecord.BucketGeneration;
import io.blockcache.format.JournalRecord.CheckpointDone;
import io.blockcache.format.JournalRecord.CleanShutdown;
import io.blockcache.format.JournalRecord.ExtentClean;
import io.blockcache.format.JournalRecord.ExtentInsert;
import io.blockcache.format.JournalRecord.ExtentRemove;
import io.blockcache.loop.Prng;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** Seeded generators of valid structures with random field values, for round-trip and corruption tests. */
final class Samples {
    private Samples() {
    }

    static UUID uuid(Prng prng) {
        return new UUID(prng.nextLong(), prng.nextLong());
    }

    static int u16(Prng prng) {
        return prng.nextInt(ByteLayout.U16_MAX + 1);
    }

    static AttachedBacking backing(Prng prng, int volumeId) {
        String name = "vol-" + volumeId + "-é".repeat(prng.nextInt(17));
        return new AttachedBacking(uuid(prng), (1 + prng.nextLong(1L << 40)) * 512,
                (1 + prng.nextLong(1024)) * 4096, volumeId, name);
    }

    static CacheSuperblock superblock(Prng prng) {
        int bucketSizeBytes = CacheSuperblock.BUCKET_SIZE_BYTES_MIN << prng.nextInt(7);
        List<AttachedBacking> backings = new ArrayList<>();
        int count = prng.nextInt(CacheSuperblock.BACKINGS_MAX + 1);
        for (int i = 0; i < count; i++) {
            backings.add(backing(prng, i * 7 + prng.nextInt(7)));
        }
        int journalBuckets = 1 + prng.nextInt(64);
        return new CacheSuperblock(1 + prng.nextLong(1L << 50), uuid(prng), 512 << prng.nextInt(4),
                bucketSizeBytes, journalBuckets + 1 + prng.nextInt(1 << 20), (2 + prng.nextLong(1000)) * 4096,
                0, journalBuckets, prng.nextInt(2), backings);
    }

    static ExtentInsert extent(Prng prng, int volumeId) {
        int lengthSectors = 1 + prng.nextInt(2048);
        int spanStart = prng.nextInt(100);
        int offset = spanStart + prng.nextInt(10000);
        return new ExtentInsert(volumeId, prng.nextLong(1L << 45), lengthSectors, prng.nextInt(1 << 30), offset,
                u16(prng), prng.chance(0.5), (int) prng.nextLong(), spanStart,
                spanStart + lengthSectors + prng.nextInt(100));
    }

    /** {@code extent} with {@code epoch} if it is dirty (as an epoch-ordered volume records it), else unchanged. */
    static ExtentInsert withEpoch(ExtentInsert extent, long epoch) {
        return !extent.dirty() ? extent : new ExtentInsert(extent.volumeId(), extent.startSector(),
                extent.lengthSectors(), extent.bucket(), extent.offsetInBucketSectors(), extent.generation(), true,
                extent.crc32c(), extent.crcSpanStartSectors(), extent.crcSpanLengthSectors(), epoch);
    }

    static JournalRecord record(Prng prng) {
        return switch (prng.nextInt(6)) {
            case 0 -> extent(prng, u16(prng));
            case 1 -> new ExtentRemove(u16(prng), prng.nextLong(1L << 45), 1 + prng.nextInt(1 << 20));
            case 2 -> new ExtentClean(u16(prng), prng.nextLong(1L << 45), 1 + prng.nextInt(1 << 20),
                    prng.nextInt(1 << 30), u16(prng), u16(prng));
            case 3 -> new BucketGeneration(prng.nextInt(1 << 30), u16(prng));
            case 4 -> {
                List<Integer> buckets = new ArrayList<>();
                for (int i = prng.nextInt(20); i > 0; i--) {
                    buckets.add(prng.nextInt(1 << 30));
                }
                yield new CheckpointDone(prng.nextLong(1L << 50), buckets, prng.nextLong(1L << 40),
                        (int) prng.nextLong());
            }
            default -> new CleanShutdown();
        };
    }

    /** A block CRC record (type 9) of 1 to 64 random CRCs anywhere in a bucket. */
    static JournalRecord.BlockCrcs blockCrcs(Prng prng) {
        int[] crcs = new int[1 + prng.nextInt(64)];
        for (int i = 0; i < crcs.length; i++) {
            crcs[i] = (int) prng.nextLong();
        }
        return new JournalRecord.BlockCrcs(prng.nextInt(1 << 30), u16(prng),
                prng.nextInt(JournalRecord.BlockCrcs.BLOCKS_MAX - crcs.length + 1), crcs);
    }

    static List<JournalRecord> records(Prng prng, int count) {
        List<JournalRecord> records = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            records.add(record(prng));
        }
        return records;
    }

    /** Flips bit {@code bit} of a copy of {@code bytes}. */
    static byte[] flip(byte[] bytes, int bit) {
        byte[] copy = bytes.clone();
        copy[bit / 8] ^= (byte) (1 << (bit % 8));
        return copy;
    }
}
