package io.blockcache.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.format.CacheSuperblock;
import io.blockcache.format.JournalEntry;
import io.blockcache.format.JournalScanner;
import io.blockcache.journal.JournalRecovery;
import io.blockcache.volume.Volume;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Damaged journal entries (FORMAT.md §5.3): in the middle of the durable journal recovery must refuse and say
 * where; at the tail (a write that was never acknowledged) it must recover the valid prefix.
 */
class JournalCorruptionTest {
    /** Blocks written, each followed by a FLUSH, so each sits in its own committed journal entry. */
    private static final int BLOCKS = 8;
    private static final int BLOCK_BYTES = 8192;
    /** Written far apart so that no two blocks share an extent. */
    private static final long STRIDE_BYTES = 256 << 10;

    private final SimCacheSet sim = new SimCacheSet();
    private CacheSuperblock superblock;
    private long ringStartBytes;

    @BeforeEach
    void writeBlocksEachFlushedThenCrash() {
        sim.format(1);
        CacheSet set = sim.openOk();
        superblock = set.superblock();
        ringStartBytes = superblock.bucketOffsetBytes(superblock.journalFirstBucket());
        Volume volume = set.volume(SimCacheSet.EXPORT);
        for (int i = 0; i < BLOCKS; i++) {
            sim.writeOk(volume, i * STRIDE_BYTES, block(i));
            sim.flushOk(volume);
        }
        sim.crash();
    }

    private static byte[] block(int i) {
        return SimCacheSet.pattern(100 + i, BLOCK_BYTES);
    }

    /** The entries a recovery walk finds now, with their ring offsets. */
    private List<JournalScanner.ScannedEntry> walk() throws JournalRecovery.CorruptJournalException {
        int ringBytes = superblock.journalBuckets() * superblock.bucketSizeBytes();
        byte[] ring = sim.rawRead(sim.cache, ringStartBytes, ringBytes);
        List<JournalScanner.ScannedEntry> walked = JournalRecovery.recover(ring, superblock.bucketSizeBytes()).walked();
        assertThat(walked).as("one committed entry per flushed block at least").hasSizeGreaterThanOrEqualTo(BLOCKS);
        return walked;
    }

    private void checkBlocks(Volume volume, int intactCount) {
        for (int i = 0; i < intactCount; i++) {
            assertThat(sim.readOk(volume, i * STRIDE_BYTES, BLOCK_BYTES)).as("block %s", i).isEqualTo(block(i));
        }
    }

    @Test
    void damagedEntryInTheMiddleIsRefusedWithItsSequenceAndRingOffset() throws Exception {
        // Proves fail-stop on corruption of durable journal: a damaged entry with valid successors after it
        // refuses open, naming the entry's sequence and ring byte offset, instead of silently dropping the rest.
        List<JournalScanner.ScannedEntry> walked = walk();
        JournalScanner.ScannedEntry victim = walked.get(walked.size() - 4); // three committed entries after it
        sim.flipByte(sim.cache, ringStartBytes + victim.ringOffsetBytes() + JournalEntry.HEADER_BYTES + 1);

        Outcome<CacheSet> opened = sim.open();
        assertThat(opened.isOk()).as("open must refuse").isFalse();
        assertThat(opened.error())
                .contains("corrupt journal entry sequence " + victim.entry().sequence() + " at ring byte "
                        + victim.ringOffsetBytes())
                .contains("CRC32C")
                .contains("its successor (sequence " + (victim.entry().sequence() + 1) + ") is valid");
    }

    @Test
    void tornLastEntryRecoversTheValidPrefix() throws Exception {
        // Proves a damaged final entry (a torn, never-acknowledged write) ends the journal: open succeeds, every
        // earlier block is intact, the block only that entry recorded is gone, and new commits work again.
        List<JournalScanner.ScannedEntry> walked = walk();
        JournalScanner.ScannedEntry last = walked.get(walked.size() - 1);
        sim.flipByte(sim.cache, ringStartBytes + last.ringOffsetBytes() + JournalEntry.HEADER_BYTES + 1);

        Volume volume = sim.openOk().volume(SimCacheSet.EXPORT);
        checkBlocks(volume, BLOCKS - 1);
        assertThat(sim.readOk(volume, (BLOCKS - 1) * STRIDE_BYTES, BLOCK_BYTES))
                .as("the last block was recorded only by the torn entry: the backing device's zeroes")
                .isEqualTo(new byte[BLOCK_BYTES]);
        writeFlushCrashAndCheck(volume, BLOCKS - 1);
    }

    @Test
    void garbageAfterTheLastEntryIsIgnored() throws Exception {
        // Proves a block that looks like the start of an entry but fails its CRC after the last entry (a torn
        // write that never completed) is a normal end: everything recovers, and the writer overwrites it.
        List<JournalScanner.ScannedEntry> walked = walk();
        JournalScanner.ScannedEntry last = walked.get(walked.size() - 1);
        long garbageRingOffset = last.ringOffsetBytes() + last.entry().entryBytes();
        assertThat(garbageRingOffset % superblock.bucketSizeBytes()).as("garbage lands inside the bucket").isNotZero();
        byte[] garbage = SimCacheSet.pattern(77, 4096);
        System.arraycopy("BCJOURNL".getBytes(StandardCharsets.US_ASCII), 0, garbage, 0, 8);
        garbage[8] = 1; // version 1, little-endian
        garbage[9] = 0;
        garbage[10] = 0;
        garbage[11] = 0;
        sim.rawWrite(sim.cache, ringStartBytes + garbageRingOffset, garbage);

        Volume volume = sim.openOk().volume(SimCacheSet.EXPORT);
        checkBlocks(volume, BLOCKS);
        writeFlushCrashAndCheck(volume, BLOCKS);
    }

    /** Writes one more block, flushes, crashes and checks that it and the first {@code intact} survive. */
    private void writeFlushCrashAndCheck(Volume volume, int intact) {
        byte[] extra = SimCacheSet.pattern(999, BLOCK_BYTES);
        long extraOffset = BLOCKS * STRIDE_BYTES;
        sim.writeOk(volume, extraOffset, extra);
        sim.flushOk(volume);
        sim.crash();
        Volume reopened = sim.openOk().volume(SimCacheSet.EXPORT);
        checkBlocks(reopened, intact);
        assertThat(sim.readOk(reopened, extraOffset, BLOCK_BYTES)).as("block committed after recovery")
                .isEqualTo(extra);
    }

    @Test
    void damagedFirstEntryOfTheRingIsRefused() throws Exception {
        // Proves fail-stop also when the damaged entry is the first of its bucket (the walk's start point).
        List<JournalScanner.ScannedEntry> walked = walk();
        JournalScanner.ScannedEntry victim = walked.get(0);
        assertThat(victim.ringOffsetBytes() % superblock.bucketSizeBytes()).isZero();
        sim.flipByte(sim.cache, ringStartBytes + victim.ringOffsetBytes() + JournalEntry.HEADER_BYTES + 1);

        Outcome<CacheSet> opened = sim.open();
        if (opened.isOk()) {
            byte[] found = sim.readOk(opened.value().volume(SimCacheSet.EXPORT), 0, BLOCK_BYTES);
            assertThat(opened.isOk()).as("open must refuse: the ring held %s committed entries, entry %s was damaged, "
                    + "and the flushed block 0 now reads back %s", walked.size(), victim.entry().sequence(),
                    Arrays.equals(found, block(0)) ? "intact" : "LOST").isFalse();
        }
        assertThat(opened.error()).contains("sequence " + victim.entry().sequence() + " at ring byte "
                + victim.ringOffsetBytes());
    }
}
