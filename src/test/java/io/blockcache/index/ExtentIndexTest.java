package io.blockcache.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blockcache.loop.Prng;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ExtentIndexTest {
    private static final GenerationSource GENERATION_ZERO = bucket -> 0;

    private final ExtentIndex index = new ExtentIndex(ExtentListener.NONE, true, 4, 4);

    /** Renders a lookup as "hole 90+10", "100+30 @b3+10 g0 D crc 170 over +10/100" pieces. */
    private static List<String> lookup(ExtentIndex index, long start, int length, GenerationSource generations) {
        List<String> pieces = new ArrayList<>();
        index.lookup(start, length, generations, new LookupVisitor() {
            @Override
            public void hole(long holeStart, int holeLength) {
                pieces.add("hole " + holeStart + "+" + holeLength);
            }

            @Override
            public void extent(long s, int l, long location, int crc, int crcOffset, int crcLength) {
                pieces.add(render(s, l, location, crc, crcOffset, crcLength));
            }
        });
        return pieces;
    }

    private static String render(long s, int l, long location, int crc, int crcOffset, int crcLength) {
        return s + "+" + l + " @b" + ExtentLocation.bucket(location)
                + "+" + ExtentLocation.offsetInBucketSectors(location)
                + " g" + ExtentLocation.generation(location) + (ExtentLocation.dirty(location) ? " D" : " C")
                + " crc " + crc + " over +" + crcOffset + "/" + crcLength;
    }

    @Test
    void insertInsideAnExtentSplitsItAndPiecesKeepTheirCrcCoverage() {
        // Proves a middle overwrite leaves two pieces, offsets shifted, whose CRC still names the original range.
        index.insert(100, 100, 3, 10, 0, true, 170);
        index.insert(130, 20, 4, 0, 0, false, 187);
        assertThat(lookup(index, 90, 120, GENERATION_ZERO)).containsExactly(
                "hole 90+10",
                "100+30 @b3+10 g0 D crc 170 over +10/100",
                "130+20 @b4+0 g0 C crc 187 over +0/20",
                "150+50 @b3+60 g0 D crc 170 over +10/100",
                "hole 200+10");
        assertThat(index.extentCount()).isEqualTo(3);
        assertThat(index.cachedSectors()).isEqualTo(100);
        assertThat(index.dirtySectors()).isEqualTo(80);
    }

    @Test
    void anOverwriteOfExactlyOneExtentReplacesItInPlaceWithCountsAndListenerInStep() {
        // Proves the exact-range fast path: new location, CRC and span, the old one reported gone, counts right,
        // neighbours untouched; also for a stale key and for a cut piece whose CRC span was wider.
        List<String> events = new ArrayList<>();
        ExtentIndex recorded = new ExtentIndex(new ExtentListener() {
            @Override
            public void onAdded(int bucket, int generation, int sectors, boolean dirty) {
                events.add("+" + sectors + (dirty ? "D" : "C") + "@b" + bucket + "g" + generation);
            }

            @Override
            public void onRemoved(int bucket, int generation, int sectors, boolean dirty) {
                events.add("-" + sectors + (dirty ? "D" : "C") + "@b" + bucket + "g" + generation);
            }

            @Override
            public void onDirtyChanged(int bucket, int generation, int sectors, boolean dirtyNow) {
                events.add("~" + sectors);
            }
        }, true, 4, 4);
        for (int i = 0; i < 12; i++) {
            recorded.insert(i * 8L, 8, 1, i * 8, 0, false, i);
        }
        recorded.insert(40, 8, 2, 0, 3, true, 99, 0, 8);
        recorded.insert(40, 8, 5, 16, 0, false, 77, 8, 32);
        assertThat(lookup(recorded, 32, 24, GENERATION_ZERO)).containsExactly(
                "32+8 @b1+32 g0 C crc 4 over +32/8",
                "40+8 @b5+16 g0 C crc 77 over +8/32",
                "48+8 @b1+48 g0 C crc 6 over +48/8");
        assertThat(events.subList(12, events.size())).containsExactly(
                "-8C@b1g0", "+8D@b2g3", "-8D@b2g3", "+8C@b5g0");
        assertThat(recorded.extentCount()).isEqualTo(12);
        assertThat(recorded.cachedSectors()).isEqualTo(96);
        assertThat(recorded.dirtySectors()).isZero();
    }

    @Test
    void insertAcrossSeveralExtentsTrimsTheEdgesAndDropsTheMiddle() {
        // Proves exact head/tail trimming: only the overlapped sectors are replaced.
        index.insert(0, 10, 1, 0, 0, true, 1);
        index.insert(10, 10, 1, 10, 0, true, 2);
        index.insert(20, 10, 1, 20, 0, true, 3);
        index.insert(5, 20, 2, 100, 0, false, 9);
        assertThat(lookup(index, 0, 30, GENERATION_ZERO)).containsExactly(
                "0+5 @b1+0 g0 D crc 1 over +0/10",
                "5+20 @b2+100 g0 C crc 9 over +100/20",
                "25+5 @b1+25 g0 D crc 3 over +20/10");
        assertThat(index.dirtySectors()).isEqualTo(10);
    }

    @Test
    void lookupClipsPiecesToTheRange() {
        // Proves a lookup inside one extent reports only the requested sectors, offset shifted, CRC range unchanged.
        index.insert(0, 100, 1, 0, 0, false, 5);
        assertThat(lookup(index, 40, 10, GENERATION_ZERO)).containsExactly("40+10 @b1+40 g0 C crc 5 over +0/100");
    }

    @Test
    void staleGenerationReadsAsAHoleMergedWithItsNeighbours() {
        // Proves keys of a bucket whose generation moved on are holes, and holes next to them form one hole.
        index.insert(10, 10, 1, 0, 7, false, 0);
        index.insert(20, 10, 2, 0, 7, false, 0);
        GenerationSource bucketOneBumped = bucket -> bucket == 1 ? 8 : 7;
        assertThat(lookup(index, 0, 40, bucketOneBumped)).containsExactly(
                "hole 0+20", "20+10 @b2+0 g7 C crc 0 over +0/10", "hole 30+10");
        assertThat(index.cachedSectors()).as("stale keys stay counted until removed").isEqualTo(20);
    }

    @Test
    void markCleanSkipsPiecesOverwrittenSinceWriteback() {
        // Proves a clean applies only where the index still points at the written-back location.
        index.insert(0, 100, 1, 0, 2, true, 0);
        index.insert(40, 20, 2, 0, 0, true, 0);
        assertThat(index.markClean(0, 100, 1, 0, 2)).isEqualTo(80);
        assertThat(index.dirtySectors()).isEqualTo(20);
        assertThat(index.markClean(0, 100, 1, 0, 2)).as("already clean").isZero();
        assertThat(index.markClean(40, 20, 2, 1, 0)).as("wrong offset").isZero();
        assertThat(index.markClean(40, 20, 2, 0, 1)).as("wrong generation").isZero();
        assertThat(index.markClean(45, 5, 2, 5, 0)).as("part of a piece").isEqualTo(5);
        assertThat(lookup(index, 40, 20, bucket -> bucket == 1 ? 2 : 0))
                .containsExactly("40+5 @b2+0 g0 D crc 0 over +0/20", "45+5 @b2+5 g0 C crc 0 over +0/20",
                        "50+10 @b2+10 g0 D crc 0 over +0/20");
        assertThat(index.dirtySectors()).isEqualTo(15);
    }

    @Test
    void replaceIfUnchangedMovesOnlyPiecesStillAtTheOldLocation() {
        // Proves moving GC re-points surviving pieces, keeps their dirty bit and gives them the new CRC range.
        index.insert(0, 30, 1, 0, 0, true, 11);
        index.insert(10, 10, 2, 0, 0, false, 22);
        assertThat(index.replaceIfUnchanged(0, 30, 1, 0, 0, 3, 50, 0, 33)).isEqualTo(20);
        assertThat(lookup(index, 0, 30, GENERATION_ZERO)).containsExactly(
                "0+10 @b3+50 g0 D crc 33 over +50/30",
                "10+10 @b2+0 g0 C crc 22 over +0/10",
                "20+10 @b3+70 g0 D crc 33 over +50/30");
    }

    @Test
    void removeTrimsAndReportsSectors() {
        // Proves remove unmaps exactly the range, including ranges longer than a bucket.
        index.insert(0, 16384, 1, 0, 0, true, 0);
        index.insert(16384, 100, 2, 0, 0, false, 0);
        assertThat(index.remove(10, 20000)).isEqualTo(16374 + 100);
        assertThat(lookup(index, 0, 20, GENERATION_ZERO)).containsExactly("0+10 @b1+0 g0 D crc 0 over +0/16384",
                "hole 10+10");
        assertThat(index.extentCount()).isEqualTo(1);
        assertThat(index.dirtySectors()).isEqualTo(10);
    }

    @Test
    void scanResumesFromItsCursorAndEndsWithCursorEnd() {
        // Proves a dirty scan in small batches visits each dirty extent once, in order, and reports the end.
        for (int i = 0; i < 10; i++) {
            index.insert(i * 10L, 10, 1, i * 10, 0, i % 2 == 0, 0);
        }
        List<Long> starts = new ArrayList<>();
        long cursor = index.scan(0, ExtentLocation::dirty, 2, 100, (s, l, loc, c, o, n) -> starts.add(s));
        assertThat(starts).containsExactly(0L, 20L);
        assertThat(cursor).isEqualTo(30);
        cursor = index.scan(cursor, ExtentLocation::dirty, 100, 3, (s, l, loc, c, o, n) -> starts.add(s));
        assertThat(cursor).as("bounded by extents examined").isEqualTo(60);
        cursor = index.scan(cursor, ExtentLocation::dirty, 100, 100, (s, l, loc, c, o, n) -> starts.add(s));
        assertThat(cursor).isEqualTo(ExtentIndex.CURSOR_END);
        assertThat(starts).containsExactly(0L, 20L, 40L, 60L, 80L);
    }

    @Test
    void nodeSlicesCoverEveryExtentExactlyOnce() {
        // Proves GC's slices of whole leaves visit each extent once and take nodeCount/10 slices of 10 nodes.
        ExtentIndex big = new ExtentIndex();
        for (int i = 0; i < 20_000; i++) {
            big.insert(i * 8L, 4, i % 100, 0, 0, false, i);
        }
        boolean[] seen = new boolean[20_000];
        long cursor = 0;
        int slices = 0;
        do {
            cursor = big.forEachInNodes(cursor, 10, (s, l, loc, c, o, n) -> {
                assertThat(seen[(int) (s / 8)]).isFalse();
                seen[(int) (s / 8)] = true;
            });
            slices++;
        } while (cursor != ExtentIndex.CURSOR_END);
        for (boolean b : seen) {
            assertThat(b).isTrue();
        }
        assertThat(slices).isEqualTo((big.nodeCount() + 9) / 10);
        big.verify();
    }

    @Test
    void dropStaleInNodesRemovesOnlyStaleKeysAndReportsThem() {
        // Proves GC's stale-key sweep removes exactly the keys of bumped buckets, slice by slice, with counts.
        long[] removedByListener = new long[1];
        ExtentIndex big = new ExtentIndex(new ExtentListener() {
            @Override
            public void onAdded(int bucket, int generation, int lengthSectors, boolean dirty) {}

            @Override
            public void onRemoved(int bucket, int generation, int lengthSectors, boolean dirty) {
                assertThat(bucket % 3).isZero();
                removedByListener[0] += lengthSectors;
            }

            @Override
            public void onDirtyChanged(int bucket, int generation, int lengthSectors, boolean dirtyNow) {}
        }, false, 8, 4);
        for (int i = 0; i < 3000; i++) {
            big.insert(i * 10L, 5, i % 30, 0, 4, false, 0);
        }
        GenerationSource everyThirdBumped = bucket -> bucket % 3 == 0 ? 5 : 4;
        long cursor = 0;
        do {
            cursor = big.dropStaleInNodes(cursor, 3, everyThirdBumped);
        } while (cursor != ExtentIndex.CURSOR_END);
        big.verify();
        assertThat(big.extentCount()).isEqualTo(2000);
        assertThat(removedByListener[0]).isEqualTo(1000 * 5);
        assertThat(big.cachedSectors()).isEqualTo(2000 * 5);
        assertThat(lookup(big, 0, 30_000, everyThirdBumped).stream().filter(p -> !p.startsWith("hole")).count())
                .isEqualTo(2000);
    }

    @Test
    void sequentialInsertsFillLeavesNearlyFull() {
        // Proves appends split leaves at 7/8 rather than 1/2, which is what keeps memory per extent low.
        ExtentIndex big = new ExtentIndex();
        for (int i = 0; i < 100_000; i++) {
            big.insert(i * 8L, 8, 1, 0, 0, true, 0);
        }
        double fill = (double) big.extentCount() / (big.nodeCount() * (double) ExtentIndex.LEAF_CAPACITY_DEFAULT);
        assertThat(fill).isGreaterThan(0.85);
    }

    @Test
    void rejectsExtentsOutsideTheirLimits() {
        // Proves the always-on argument checks refuse extents that cannot be stored faithfully.
        assertThatThrownBy(() -> index.insert(0, 0, 1, 0, 0, true, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> index.insert(0, 16385, 1, 0, 0, true, 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> index.insert(0, 100, 1, 16300, 0, true, 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> index.insert(0, 1, -1, 0, 0, true, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> index.insert(0, 1, 1, 0, 65536, true, 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> index.insert(-1, 1, 1, 0, 0, true, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThat(index.extentCount()).isZero();
    }

    @Test
    void locationPacksEveryFieldAtItsLimits() {
        // Proves the packed location round-trips the extreme bucket, offset and generation values.
        long location =
                ExtentLocation.pack(Integer.MAX_VALUE, ExtentLocation.OFFSET_IN_BUCKET_MAX_SECTORS, 65535, true);
        assertThat(ExtentLocation.bucket(location)).isEqualTo(Integer.MAX_VALUE);
        assertThat(ExtentLocation.offsetInBucketSectors(location)).isEqualTo(32767);
        assertThat(ExtentLocation.generation(location)).isEqualTo(65535);
        assertThat(ExtentLocation.dirty(location)).isTrue();
        assertThat(location).isPositive();
        assertThat(ExtentLocation.dirty(ExtentLocation.withDirty(location, false))).isFalse();
    }

    @Test
    void randomInsertsShiftIntoSiblingsAndKeepLeavesFourFifthsFull() {
        // Proves the B*-style shift: random-order inserts fill leaves >= 80 % (split-at-half alone gives ~69 %).
        ExtentIndex big = new ExtentIndex(ExtentListener.NONE, false, 128, 64);
        int extents = 100_000;
        int[] order = new int[extents];
        for (int i = 0; i < extents; i++) {
            order[i] = i;
        }
        Prng prng = new Prng(7);
        for (int i = extents - 1; i > 0; i--) {
            int j = prng.nextInt(i + 1);
            int swap = order[i];
            order[i] = order[j];
            order[j] = swap;
        }
        for (int slot : order) {
            big.insert(slot * 16L, 8, slot / 256, 0, 0, true, slot);
        }
        big.verify();
        double fill = extents / (big.nodeCount() * 128.0);
        assertThat(fill).isGreaterThan(0.80);
        assertThat(big.extentCount()).isEqualTo(extents);
    }

    @Test
    void anExtentEndingBeyondTwoToThe47SectorsIsRefused() {
        // Proves the packed start/length limit is checked, with a message, before anything is stored.
        assertThatThrownBy(() -> index.insert(ExtentIndex.SECTOR_LIMIT - 4, 8, 1, 0, 0, true, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("2^47");
        index.insert(ExtentIndex.SECTOR_LIMIT - 8, 8, 1, 0, 0, true, 1);
        assertThat(lookup(index, ExtentIndex.SECTOR_LIMIT - 8, 8, GENERATION_ZERO)).containsExactly(
                (ExtentIndex.SECTOR_LIMIT - 8) + "+8 @b1+0 g0 D crc 1 over +0/8");
    }
}
