package io.blockcache.format;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.format.CheckpointItem.BlockCrcRun;
import io.blockcache.format.CheckpointItem.ExtentRun;
import io.blockcache.format.CheckpointItem.GenerationSlice;
import io.blockcache.format.JournalRecord.ExtentInsert;
import io.blockcache.loop.Prng;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class CheckpointTest {
    private static List<CheckpointItem> items(Prng prng) {
        List<CheckpointItem> items = new ArrayList<>();
        List<Integer> generations = new ArrayList<>();
        for (int i = 0; i < 5000; i++) {
            generations.add(Samples.u16(prng));
        }
        items.add(new GenerationSlice(0, generations));
        int[] crcs = new int[3000]; // more than a chunk of 8 KiB holds: split by blocks
        for (int i = 0; i < crcs.length; i++) {
            crcs[i] = (int) prng.nextLong();
        }
        items.add(new BlockCrcRun(new JournalRecord.BlockCrcs(7, 12, 100, crcs)));
        List<JournalRecord.CleanCovered> covered = new ArrayList<>();
        for (int bucket = 0; bucket < 1500; bucket++) { // 12 KiB: split over chunks of 8 KiB
            covered.add(new JournalRecord.CleanCovered(bucket * 3, prng.nextInt(65536), 1 + prng.nextInt(16384)));
        }
        items.add(new CheckpointItem.CoverageRun(covered));
        for (int volume = 0; volume < 3; volume++) {
            List<ExtentInsert> extents = new ArrayList<>();
            for (int i = 1 + prng.nextInt(700); i > 0; i--) {
                ExtentInsert extent = Samples.extent(prng, volume);
                // Volume 1 keeps epoch order: its dirty extents carry their epochs (type 3 runs), clean ones none.
                extents.add(volume == 1 ? Samples.withEpoch(extent, 1 + i % 5) : extent);
            }
            items.add(new ExtentRun(volume, extents));
        }
        return items;
    }

    @Test
    void itemsSplitAcrossChunksDecodeBackToTheSameContent() {
        // Proves chunks stay within the bound, are numbered in order, and together hold exactly the input.
        List<CheckpointItem> input = items(new Prng(31));
        CheckpointEncoder encoder = new CheckpointEncoder(42, 8192, input.iterator());
        List<Integer> generations = new ArrayList<>();
        List<ExtentInsert> extents = new ArrayList<>();
        List<Integer> blockCrcs = new ArrayList<>();
        List<JournalRecord.CleanCovered> coverage = new ArrayList<>();
        CheckpointDigest digest = new CheckpointDigest();
        int index = 0;
        while (encoder.hasNext()) {
            byte[] bytes = encoder.nextChunk();
            assertThat(bytes.length).isLessThanOrEqualTo(8192).isEqualTo((bytes.length / 4096) * 4096);
            CheckpointChunk chunk = CheckpointChunk.decode(bytes, 0).value();
            assertThat(chunk.chunkIndex()).isEqualTo(index++);
            assertThat(chunk.checkpointStartSequence()).isEqualTo(42);
            digest.add(chunk.chunkCrc());
            for (CheckpointItem item : chunk.items()) {
                switch (item) {
                    case GenerationSlice slice -> {
                        assertThat(slice.firstBucket()).isEqualTo(generations.size());
                        generations.addAll(slice.generations());
                    }
                    case ExtentRun run -> extents.addAll(run.extents());
                    case CheckpointItem.CoverageRun run -> coverage.addAll(run.covered());
                    case BlockCrcRun run -> {
                        assertThat(run.crcs().bucket()).isEqualTo(7);
                        assertThat(run.crcs().generation()).isEqualTo(12);
                        assertThat(run.crcs().firstBlock()).isEqualTo(100 + blockCrcs.size());
                        for (int crc : run.crcs().crcs()) {
                            blockCrcs.add(crc);
                        }
                    }
                }
            }
        }
        assertThat(index).isGreaterThan(5);
        assertThat(blockCrcs).containsExactlyElementsOf(Arrays.stream(((BlockCrcRun) input.get(1)).crcs().crcs())
                .boxed().toList());
        assertThat(generations).isEqualTo(((GenerationSlice) input.get(0)).generations());
        List<ExtentInsert> expected = new ArrayList<>();
        assertThat(coverage).hasSize(1500).isEqualTo(((CheckpointItem.CoverageRun) input.get(2)).covered());
        input.stream().skip(3).forEach(item -> expected.addAll(((ExtentRun) item).extents()));
        assertThat(extents).isEqualTo(expected);
        assertThat(extents).anySatisfy(extent -> assertThat(extent.epoch()).isPositive());
        assertThat(encoder.extentCount()).isEqualTo(expected.size());
        assertThat(encoder.checkpointCrc()).isEqualTo(digest.value());
        assertThat(encoder.chunkCount()).isEqualTo(index);
    }

    @Test
    void chunksEncodedIntoOneReusedArrayAreTheFreshOnes() {
        // Proves the checkpoint writer's path (every chunk encoded into the same array, over the bytes of the chunk
        // before) writes exactly the chunks of a fresh array each: header and padding are cleared, not left over.
        CheckpointEncoder fresh = new CheckpointEncoder(42, 8192, items(new Prng(33)).iterator());
        CheckpointEncoder reusing = new CheckpointEncoder(42, 8192, items(new Prng(33)).iterator());
        byte[] reused = new byte[8192];
        Arrays.fill(reused, (byte) 0x5A); // what an older checkpoint left
        int chunks = 0;
        while (fresh.hasNext()) {
            byte[] expected = fresh.nextChunk();
            int chunkBytes = reusing.nextChunk(reused);
            assertThat(Arrays.copyOf(reused, chunkBytes)).as("chunk %d", chunks++).isEqualTo(expected);
        }
        assertThat(reusing.hasNext()).isFalse();
        assertThat(chunks).isGreaterThan(5);
        assertThat(reusing.checkpointCrc()).isEqualTo(fresh.checkpointCrc());
    }

    @Test
    void everyFlippedBitOfAChunkIsRejected() {
        // Proves no single-bit error anywhere in a chunk, padding included, decodes.
        CheckpointEncoder encoder = new CheckpointEncoder(9, 8192, items(new Prng(32)).iterator());
        encoder.nextChunk();
        byte[] bytes = encoder.nextChunk();
        for (int bit = 0; bit < bytes.length * 8; bit++) {
            DecodeResult<CheckpointChunk> result = CheckpointChunk.decode(Samples.flip(bytes, bit), 0);
            assertThat(result.isOk()).as("bit %d", bit).isFalse();
            assertThat(result.error().message()).contains("checkpoint chunk");
        }
    }
}
