package io.blockcache.writeback;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.cache.BucketTable;
import io.blockcache.index.ExtentIndex;
import io.blockcache.index.ExtentLocation;
import java.util.ArrayList;
import java.util.List;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;

/**
 * The scan around keys in flight: on an object store a pass writes one chunk, so an extent across a chunk boundary
 * is in flight in part; the scan must still find its other parts (fuzz seed 347982, docs/TESTING.md bug 18).
 */
class DirtyScannerPiecesTest {
    private static final int BUCKET_SECTORS = 2048;

    private final ExtentIndex index = new ExtentIndex();
    private final InFlightKeys inFlight = new InFlightKeys();
    private final DirtyAges ages = new DirtyAges(new BucketTable(4, BUCKET_SECTORS), 0);

    @Test
    void anExtentInFlightInPartGivesItsOtherPiecesAsKeysAtTheirPlaceInTheBucket() {
        // One dirty extent of sectors [100, 300) at bucket 1 + 50; the chunk pass before took [128, 256) of it.
        index.insert(100, 200, 1, 50, 3, true, 0x1234);
        inFlight.add(new DirtyKey(128, 128, ExtentLocation.pack(1, 78, 3, true), 0x1234, 50, 200, 0));

        List<DirtyKey> pieces = sweep(true);

        assertThat(pieces).extracting(DirtyKey::startSector, DirtyKey::lengthSectors, DirtyKey::offsetInBucketSectors,
                DirtyKey::crcOffsetInBucketSectors, DirtyKey::crcLengthSectors)
                .containsExactly(Tuple.tuple(100L, 28, 50, 50, 200),
                        Tuple.tuple(256L, 44, 206, 50, 200));
        assertThat(pieces).allMatch(key -> key.bucket() == 1 && key.generation() == 3);
    }

    @Test
    void onADiskAnExtentInFlightInPartIsSkippedWhole() {
        // Keys on a disk are whole extents: one overlapping a key in flight is newer data over it, written after it.
        index.insert(100, 200, 1, 50, 3, true, 0x1234);
        inFlight.add(new DirtyKey(128, 128, ExtentLocation.pack(1, 78, 3, true), 0x1234, 50, 200, 0));

        assertThat(sweep(false)).isEmpty();
    }

    @Test
    void gapsAroundSeveralKeysInFlightAreEachAPiece() {
        List<long[]> gaps = new ArrayList<>();
        inFlight.add(new DirtyKey(0, 10, ExtentLocation.pack(0, 0, 0, true), 0, 0, 10, 0));
        inFlight.add(new DirtyKey(20, 5, ExtentLocation.pack(0, 20, 0, true), 0, 20, 5, 0));
        inFlight.add(new DirtyKey(40, 10, ExtentLocation.pack(0, 40, 0, true), 0, 40, 10, 0));
        inFlight.forEachGap(5, 40, (start, length) -> gaps.add(new long[] {start, length}));
        assertThat(gaps).containsExactly(new long[] {10, 10}, new long[] {25, 15});

        gaps.clear();
        inFlight.forEachGap(60, 8, (start, length) -> gaps.add(new long[] {start, length}));
        assertThat(gaps).containsExactly(new long[] {60, 8});
    }

    private List<DirtyKey> sweep(boolean piecesAroundInFlight) {
        DirtyScanner scanner = new DirtyScanner();
        boolean wrapped = false;
        while (!wrapped) {
            wrapped = scanner.refillSlice(index, ExtentLocation::dirty, DirtyScanner.RangeFilter.ALL, 100, inFlight,
                    ages, 0, piecesAroundInFlight);
        }
        List<DirtyKey> keys = new ArrayList<>();
        for (DirtyKey key = scanner.pollLowest(); key != null; key = scanner.pollLowest()) {
            keys.add(key);
        }
        return keys;
    }
}
