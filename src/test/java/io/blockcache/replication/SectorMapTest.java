package io.blockcache.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class SectorMapTest {
    @Test
    void newerRequestsSplitOlderPiecesAndPruningTakesOnlyTheNamedRequest() {
        // Proves: an overlapping put keeps only the parts of older pieces outside it, with their data offsets
        // shifted; removeIfSeq drops only the parts the named request still holds.
        SectorMap map = new SectorMap();
        byte[] a = filled(10, 1);
        map.put(0, 10, 1, a, 0);
        map.put(4, 2, 2, null, 0);
        List<SectorMap.Piece> pieces = list(map);
        assertThat(pieces).extracting(SectorMap.Piece::start, SectorMap.Piece::end, SectorMap.Piece::seq)
                .containsExactly(tuple(0L, 4L, 1L),
                        tuple(4L, 6L, 2L), tuple(6L, 10L, 1L));
        assertThat(pieces.get(2).dataOffset()).isEqualTo(6 * SectorMap.SECTOR_BYTES);
        assertThat(map.dataBytes()).isEqualTo(8L * SectorMap.SECTOR_BYTES);

        assertThat(map.removeIfSeq(0, 10, 2)).isEqualTo(2);
        assertThat(map.removeIfSeq(2, 6, 1)).isEqualTo(4); // [2,4) and [6,8)
        assertThat(list(map)).extracting(SectorMap.Piece::start, SectorMap.Piece::end)
                .containsExactly(tuple(0L, 2L), tuple(8L, 10L));
        map.remove(0, 100);
        assertThat(map.pieceCount()).isZero();
        assertThat(map.dataBytes()).isZero();
    }

    @Test
    void agreesWithAPerSectorModelUnderRandomOperations() {
        // Proves, against a plain array of (seq per sector), that puts, trims and conditional prunes leave exactly
        // the pieces the model says, for 2,000 random operations.
        SplittableRandom random = new SplittableRandom(7);
        int sectors = 256;
        long[] model = new long[sectors]; // 0 = nothing
        SectorMap map = new SectorMap();
        for (int op = 1; op <= 2_000; op++) {
            int start = random.nextInt(sectors);
            int length = 1 + random.nextInt(Math.min(40, sectors - start));
            switch (random.nextInt(3)) {
                case 0 -> {
                    map.put(start, length, op, null, 0);
                    java.util.Arrays.fill(model, start, start + length, op);
                }
                case 1 -> {
                    map.remove(start, length);
                    java.util.Arrays.fill(model, start, start + length, 0);
                }
                default -> {
                    long seq = model[start];
                    if (seq != 0) {
                        map.removeIfSeq(start, length, seq);
                        for (int s = start; s < start + length; s++) {
                            model[s] = model[s] == seq ? 0 : model[s];
                        }
                    }
                }
            }
            long[] seen = new long[sectors];
            for (SectorMap.Piece p : map.all()) {
                assertThat(p.end()).isGreaterThan(p.start());
                for (long s = p.start(); s < p.end(); s++) {
                    assertThat(seen[(int) s]).as("sector %d in two pieces", s).isZero();
                    seen[(int) s] = p.seq();
                }
            }
            assertThat(seen).as("after operation %d", op).isEqualTo(model);
        }
    }

    private static List<SectorMap.Piece> list(SectorMap map) {
        List<SectorMap.Piece> pieces = new ArrayList<>();
        map.all().forEach(pieces::add);
        return pieces;
    }

    private static byte[] filled(int sectors, int value) {
        byte[] data = new byte[sectors * SectorMap.SECTOR_BYTES];
        java.util.Arrays.fill(data, (byte) value);
        return data;
    }
}
