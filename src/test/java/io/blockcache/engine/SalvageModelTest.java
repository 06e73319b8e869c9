package io.blockcache.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.format.CacheSuperblock;
import io.blockcache.format.CheckpointChunk;
import io.blockcache.format.Crc;
import io.blockcache.format.DecodeResult;
import io.blockcache.format.JournalEntry;
import io.blockcache.loop.Prng;
import io.blockcache.volume.Volume;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Salvage against a reference model: seeded random writes, FLUSHes, checkpoints and writeback on a simulated cache
 * set whose journal ring wraps, then one metadata structure damaged; every extent salvage recovers must hold exactly
 * the newest acknowledged data, and every range that was dirty must be recovered or listed.
 */
class SalvageModelTest {
    private static final int VOLUME_BYTES = 16 << 20;
    private static final int OPERATIONS = 300;
    private static final int SEEDS = 3;

    /** What one salvage found: recovered sectors (data checked against the model) and listed ones. */
    private record Outcome(SectorRanges recovered, SectorRanges listed) {
    }

    @Test
    void recoveredDataIsAlwaysTheNewestAndEveryDirtyRangeIsRecoveredOrListed() {
        // Proves, over seeds and damage kinds, that salvage never recovers a stale or wrong version, that it recovers
        // everything when nothing is damaged or one superblock is, and lists whatever it does not recover.
        for (int seed = 1; seed <= SEEDS; seed++) {
            for (Damage damage : Damage.values()) {
                run(seed, damage);
            }
        }
    }

    private enum Damage { NONE, ONE_SUPERBLOCK, BOTH_SUPERBLOCKS, ZEROED_SUPERBLOCKS, CHECKPOINT_CHUNK, JOURNAL_ENTRY }

    private static void run(int seed, Damage damage) {
        SimCacheSet sim = new SimCacheSet();
        sim.format(seed);
        CacheSet set = sim.openOk();
        Volume volume = set.volumes().get(0);
        Prng prng = new Prng(seed * 31L + damage.ordinal());
        byte[] reference = new byte[VOLUME_BYTES];
        for (int op = 0; op < OPERATIONS; op++) {
            int choice = prng.nextInt(100);
            if (choice < 80) {
                int bytes = (1 + prng.nextInt(16)) * 4096;
                long at = (long) prng.nextInt((VOLUME_BYTES - bytes) / 4096) * 4096;
                byte[] data = SimCacheSet.pattern(prng.nextLong(), bytes);
                sim.writeOk(volume, at, data);
                System.arraycopy(data, 0, reference, (int) at, bytes);
            } else if (choice < 92) {
                sim.flushOk(volume);
            } else if (choice < 96) {
                assertThat(sim.io(set::checkpoint)).isEqualTo(io.blockcache.device.IoResult.OK);
            } else {
                set.knobs().find("writeback." + SimCacheSet.EXPORT + ".running").set(prng.nextInt(2) == 0 ? "true"
                        : "false");
            }
        }
        sim.flushOk(volume);
        sim.crash();
        String label = "seed " + seed + ", damage " + damage;
        Outcome before = salvage(sim, reference, label + " (before the damage)");
        assertThat(before.listed().isEmpty()).as(label + ": nothing listed before the damage").isTrue();
        damage(sim, damage, prng);
        Outcome after = salvage(sim, reference, label);
        for (SectorRanges.Range dirty : before.recovered().ranges()) {
            SectorRanges missing = new SectorRanges();
            missing.add(dirty.startSector(), dirty.endSector());
            after.recovered().ranges().forEach(r -> missing.remove(r.startSector(), r.endSector()));
            after.listed().ranges().forEach(r -> missing.remove(r.startSector(), r.endSector()));
            assertThat(missing.ranges()).as(label + ": dirty sectors neither recovered nor listed").isEmpty();
        }
        if (damage == Damage.NONE || damage == Damage.ONE_SUPERBLOCK || damage == Damage.BOTH_SUPERBLOCKS
                || damage == Damage.ZEROED_SUPERBLOCKS) {
            assertThat(after.recovered().ranges()).as(label).isEqualTo(before.recovered().ranges());
            assertThat(after.listed().isEmpty()).as(label).isTrue();
        }
    }

    /** Plans a salvage of the sim cache and checks every piece whose CRC verifies against the model. */
    private static Outcome salvage(SimCacheSet sim, byte[] reference, String label) {
        CacheSuperblock superblock = Salvager.chooseSuperblock(sim.rawRead(sim.cache, 0, 8192)).superblock();
        SalvagePlan plan;
        try {
            if (superblock == null) {
                Salvager.SuperblockChoice rebuilt = SuperblockRebuild.rebuild((offset, length) ->
                        sim.rawRead(sim.cache, offset, length), sim.cache.sizeBytes());
                assertThat(rebuilt.superblock()).as(label + ": " + rebuilt.note()).isNotNull();
                superblock = rebuilt.superblock();
            }
            plan = Salvager.plan(superblock, (offset, length) -> sim.rawRead(sim.cache, offset, length), f -> { });
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
        SalvagePlan.VolumePlan volume = plan.volumes().get(0);
        SectorRanges recovered = new SectorRanges();
        SectorRanges listed = new SectorRanges();
        volume.unknown().forEach(r -> listed.add(r.startSector(), r.endSector()));
        for (SalvagePlan.Piece piece : volume.dirty()) {
            byte[] span = sim.rawRead(sim.cache, superblock.bucketOffsetBytes(piece.bucket())
                    + piece.crcOffsetInBucketSectors() * 512L, piece.crcLengthSectors() * 512);
            if (Crc.of(span, 0, span.length) != piece.crc32c()) {
                listed.add(piece.startSector(), piece.startSector() + piece.lengthSectors());
                continue;
            }
            int from = (piece.offsetInBucketSectors() - piece.crcOffsetInBucketSectors()) * 512;
            int at = (int) (piece.startSector() * 512);
            int bytes = piece.lengthSectors() * 512;
            assertThat(Arrays.copyOfRange(span, from, from + bytes))
                    .as(label + ": data recovered for sectors " + piece.startSector() + "+" + piece.lengthSectors())
                    .isEqualTo(Arrays.copyOfRange(reference, at, at + bytes));
            recovered.add(piece.startSector(), piece.startSector() + piece.lengthSectors());
        }
        return new Outcome(recovered, listed);
    }

    private static void damage(SimCacheSet sim, Damage damage, Prng prng) {
        switch (damage) {
            case NONE -> { }
            case ONE_SUPERBLOCK -> sim.flipByte(sim.cache, 2000);
            case BOTH_SUPERBLOCKS -> {
                sim.flipByte(sim.cache, 2000);
                sim.flipByte(sim.cache, 4096 + 2000);
            }
            case ZEROED_SUPERBLOCKS -> sim.rawWrite(sim.cache, 0, new byte[8192]);
            case CHECKPOINT_CHUNK -> {
                // A chunk of the newest checkpoint: the one open would load.
                long newest = -1;
                long at = -1;
                for (long offset : blocksWithMagic(sim, "BCCHECKP")) {
                    DecodeResult<CheckpointChunk> chunk = CheckpointChunk.decode(sim.rawRead(sim.cache, offset,
                            (int) Math.min(128 << 10, sim.cache.sizeBytes() - offset)), 0);
                    if (chunk.isOk() && chunk.value().checkpointStartSequence() > newest) {
                        newest = chunk.value().checkpointStartSequence();
                        at = offset;
                    }
                }
                assertThat(at).as("a checkpoint chunk").isNotNegative();
                sim.flipByte(sim.cache, at + 64);
            }
            case JOURNAL_ENTRY -> {
                // An entry open would replay, not the last: after the newest entry's checkpoint start.
                List<long[]> entries = new ArrayList<>();
                long newest = 0;
                long checkpointStart = 0;
                for (long offset : blocksWithMagic(sim, "BCJOURNL")) {
                    DecodeResult<JournalEntry.Header> header = JournalEntry.decodeHeader(sim.rawRead(sim.cache,
                            offset, 128 << 10), 0, (int) ((128 << 10) - (offset - (1 << 20)) % (128 << 10)));
                    if (header.isOk()) {
                        entries.add(new long[] {header.value().sequence(), offset});
                        if (header.value().sequence() > newest) {
                            newest = header.value().sequence();
                            checkpointStart = header.value().checkpointSequence();
                        }
                    }
                }
                long last = newest;
                long from = checkpointStart;
                List<long[]> middle = entries.stream().filter(e -> e[0] >= from && e[0] < last).toList();
                assertThat(middle).as("entries between the checkpoint start and the last").isNotEmpty();
                sim.flipByte(sim.cache, middle.get(prng.nextInt(middle.size()))[1] + 60);
            }
        }
    }

    private static List<Long> blocksWithMagic(SimCacheSet sim, String magic) {
        byte[] wanted = magic.getBytes(StandardCharsets.US_ASCII);
        byte[] device = sim.rawRead(sim.cache, 0, (int) sim.cache.sizeBytes());
        List<Long> found = new ArrayList<>();
        for (int offset = 8192; offset + 4096 <= device.length; offset += 4096) {
            if (Arrays.equals(device, offset, offset + wanted.length, wanted, 0, wanted.length)) {
                found.add((long) offset);
            }
        }
        return found;
    }
}
