package io.blockcache.index;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.loop.Prng;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class ExtentIndexModelTest {
    private static final int SECTORS = 4096;
    private static final int BUCKETS = 6;
    private static final int SEEDS = 200;
    private static final int STEPS = 300;
    private static final long NONE = -1L;

    // Reference model: per sector, the location the data of that sector lives at, and its CRC coverage.
    private final long[] modelLocation = new long[SECTORS];
    private final int[] modelCrc = new int[SECTORS];
    private final int[] modelCrcOffset = new int[SECTORS];
    private final int[] modelCrcLength = new int[SECTORS];
    private final int[] generations = new int[BUCKETS];
    /** Extents inserted or moved recently, as {start, length, bucket, offset, generation}: targets for cleans. */
    private final List<long[]> written = new ArrayList<>();
    private final CountingListener listener = new CountingListener();

    @Test
    void randomOperationsMatchPerSectorModel() {
        // Proves insert/remove/markClean/replaceIfUnchanged/dropStale/lookup/scan agree with a per-sector model, with
        // counters, listener totals and the full structure check after every step, over many seeds.
        for (int seed = 1; seed <= SEEDS; seed++) {
            runSeed(seed);
        }
    }

    private void runSeed(long seed) {
        Prng prng = new Prng(seed);
        int[] leafSizes = {4, 5, 8, 128};
        int[] innerSizes = {4, 5, 64};
        ExtentIndex index = new ExtentIndex(listener, true, leafSizes[prng.nextInt(4)], innerSizes[prng.nextInt(3)]);
        Arrays.fill(modelLocation, NONE);
        for (int b = 0; b < BUCKETS; b++) {
            generations[b] = prng.chance(0.5) ? ExtentLocation.GENERATION_MAX - 1 : prng.nextInt(100); // wrap
        }
        written.clear();
        listener.live.clear();
        listener.reported.clear();
        String op = "";
        int step = 0;
        try {
            for (step = 0; step < STEPS; step++) {
                op = step(index, prng);
                checkCounts(index);
            }
            op = "final lookup and scans";
            compareLookup(index, 0, SECTORS);
            compareDirtyScan(index, prng);
            compareNodeSlices(index, prng);
        } catch (AssertionError | RuntimeException e) {
            throw new AssertionError("seed " + seed + " step " + step + " (" + op + ") failed: " + e.getMessage(), e);
        }
    }

    private String step(ExtentIndex index, Prng prng) {
        int choice = prng.nextInt(100);
        if (choice < 40) {
            int length = prng.chance(0.9) ? 1 + prng.nextInt(64) : 1 + prng.nextInt(700);
            long start = prng.nextInt(SECTORS - length + 1);
            int bucket = prng.nextInt(BUCKETS);
            int offset = prng.nextInt(ExtentIndex.EXTENT_LENGTH_MAX_SECTORS - length + 1);
            boolean dirty = prng.chance(0.6);
            int crc = (int) prng.nextLong();
            index.insert(start, length, bucket, offset, generations[bucket], dirty, crc);
            modelPlace(start, length, ExtentLocation.pack(bucket, offset, generations[bucket], dirty), crc, offset,
                    length, false);
            written.add(new long[] {start, length, bucket, offset, generations[bucket]});
            return "insert " + start + "+" + length;
        }
        if (choice < 50) {
            int length = 1 + prng.nextInt(1000);
            long start = prng.nextInt(SECTORS);
            long removed = index.remove(start, length);
            long expected = 0;
            for (long s = start; s < Math.min(SECTORS, start + length); s++) {
                expected += modelLocation[(int) s] != NONE ? 1 : 0;
                if (modelLocation[(int) s] != NONE) {
                    listener.apply(modelLocation[(int) s], -1);
                }
                modelLocation[(int) s] = NONE;
            }
            assertThat(removed).as("sectors removed").isEqualTo(expected);
            return "remove " + start + "+" + length;
        }
        if (choice < 65 && !written.isEmpty()) {
            long[] w = pick(prng);
            long start = w[0] + (prng.chance(0.3) ? prng.nextInt((int) w[1]) : 0);
            int length = (int) Math.min(w[1] - (start - w[0]), prng.chance(0.3) ? 1 + prng.nextInt((int) w[1]) : w[1]);
            int offset = (int) (w[3] + (start - w[0]));
            long cleaned = index.markClean(start, length, (int) w[2], offset, (int) w[4]);
            long expected = 0;
            long wanted = ExtentLocation.pack((int) w[2], offset, (int) w[4], true);
            for (int k = 0; k < length; k++) {
                int s = (int) (start + k);
                if (modelLocation[s] == ExtentLocation.shifted(wanted, k)) {
                    listener.apply(modelLocation[s], -1);
                    modelLocation[s] = ExtentLocation.withDirty(modelLocation[s], false);
                    listener.apply(modelLocation[s], 1);
                    expected++;
                }
            }
            assertThat(cleaned).as("sectors cleaned").isEqualTo(expected);
            return "markClean " + start + "+" + length;
        }
        if (choice < 75 && !written.isEmpty()) {
            long[] w = pick(prng);
            int bucket = prng.nextInt(BUCKETS);
            int offset = prng.nextInt(ExtentIndex.EXTENT_LENGTH_MAX_SECTORS - (int) w[1] + 1);
            int crc = (int) prng.nextLong();
            long moved = index.replaceIfUnchanged(w[0], (int) w[1], (int) w[2], (int) w[3], (int) w[4], bucket,
                    offset, generations[bucket], crc);
            long old = ExtentLocation.pack((int) w[2], (int) w[3], (int) w[4], false);
            long target = ExtentLocation.pack(bucket, offset, generations[bucket], false);
            long expected = modelPlace(w[0], (int) w[1], target, crc, offset, (int) w[1], true, old);
            assertThat(moved).as("sectors moved").isEqualTo(expected);
            written.add(new long[] {w[0], w[1], bucket, offset, generations[bucket]});
            return "replaceIfUnchanged " + w[0] + "+" + w[1];
        }
        if (choice < 80) {
            int bucket = prng.nextInt(BUCKETS);
            generations[bucket] = (generations[bucket] + 1) & ExtentLocation.GENERATION_MAX;
            return "bump generation of bucket " + bucket;
        }
        if (choice < 83) {
            long cursor = 0;
            do {
                cursor = index.dropStaleInNodes(cursor, 1 + prng.nextInt(4), b -> generations[b]);
            } while (cursor != ExtentIndex.CURSOR_END);
            for (int s = 0; s < SECTORS; s++) {
                if (modelLocation[s] != NONE && !live(modelLocation[s])) {
                    listener.apply(modelLocation[s], -1);
                    modelLocation[s] = NONE;
                }
            }
            return "drop stale keys";
        }
        int length = 1 + prng.nextInt(prng.chance(0.5) ? 64 : 2000);
        long start = prng.nextInt(SECTORS);
        compareLookup(index, start, length);
        return "lookup " + start + "+" + length;
    }

    private long[] pick(Prng prng) {
        int from = Math.max(0, written.size() - 20);
        return written.get(from + prng.nextInt(written.size() - from));
    }

    private void modelPlace(long start, int length, long location, int crc, int crcOffset, int crcLength,
                            boolean keepDirty) {
        modelPlace(start, length, location, crc, crcOffset, crcLength, keepDirty, NONE);
    }

    /** Writes the model; with {@code onlyIfAt} != NONE only sectors still at that (shifted) location. */
    private long modelPlace(long start, int length, long location, int crc, int crcOffset, int crcLength,
                            boolean keepDirty, long onlyIfAt) {
        long placed = 0;
        for (int k = 0; k < length; k++) {
            int s = (int) (start + k);
            long current = modelLocation[s];
            if (onlyIfAt != NONE && (current == NONE
                    || ExtentLocation.withDirty(current, false) != ExtentLocation.shifted(onlyIfAt, k))) {
                continue;
            }
            boolean dirty = keepDirty ? ExtentLocation.dirty(current) : ExtentLocation.dirty(location);
            if (current != NONE) {
                listener.apply(current, -1);
            }
            modelLocation[s] = ExtentLocation.withDirty(ExtentLocation.shifted(location, k), dirty);
            listener.apply(modelLocation[s], 1);
            modelCrc[s] = crc;
            modelCrcOffset[s] = crcOffset;
            modelCrcLength[s] = crcLength;
            placed++;
        }
        return placed;
    }

    private void checkCounts(ExtentIndex index) {
        long cached = 0;
        long dirty = 0;
        for (long location : modelLocation) {
            cached += location != NONE ? 1 : 0;
            dirty += location != NONE && ExtentLocation.dirty(location) ? 1 : 0;
        }
        assertThat(index.cachedSectors()).as("cached sectors").isEqualTo(cached);
        assertThat(index.dirtySectors()).as("dirty sectors").isEqualTo(dirty);
        assertThat(index.extentCount()).as("extents").isLessThanOrEqualTo((int) cached);
        assertThat(listener.reported).as("listener totals per bucket/generation/dirty").isEqualTo(listener.live);
    }

    private void compareLookup(ExtentIndex index, long start, int length) {
        long end = start + length;
        long[] position = {start};
        boolean[] lastWasHole = {false};
        index.lookup(start, length, b -> generations[b], new LookupVisitor() {
            @Override
            public void hole(long holeStart, int holeLength) {
                assertThat(holeStart).as("hole start").isEqualTo(position[0]);
                assertThat(lastWasHole[0]).as("adjacent holes are merged").isFalse();
                for (long s = holeStart; s < Math.min(SECTORS, holeStart + holeLength); s++) {
                    if (live(modelLocation[(int) s])) {
                        throw new AssertionError("sector " + s + " reported as a hole but cached");
                    }
                }
                position[0] += holeLength;
                lastWasHole[0] = true;
            }

            @Override
            public void extent(long pieceStart, int pieceLength, long location, int crc32c, int crcOffset,
                               int crcLength) {
                assertThat(pieceStart).as("piece start").isEqualTo(position[0]);
                for (int k = 0; k < pieceLength; k++) {
                    int s = (int) (pieceStart + k);
                    if (modelLocation[s] != ExtentLocation.shifted(location, k) || modelCrc[s] != crc32c
                            || modelCrcOffset[s] != crcOffset || modelCrcLength[s] != crcLength) {
                        throw new AssertionError("sector " + s + ": index says "
                                + ExtentLocation.toString(ExtentLocation.shifted(location, k)) + " crc " + crc32c
                                + " over +" + crcOffset + "/" + crcLength + ", model says "
                                + (modelLocation[s] == NONE ? "none" : ExtentLocation.toString(modelLocation[s]))
                                + " crc " + modelCrc[s] + " over +" + modelCrcOffset[s] + "/" + modelCrcLength[s]);
                    }
                }
                position[0] += pieceLength;
                lastWasHole[0] = false;
            }
        });
        assertThat(position[0]).as("lookup covers the range").isEqualTo(end);
    }

    private boolean live(long location) {
        return location != NONE && generations[ExtentLocation.bucket(location)] == ExtentLocation.generation(location);
    }

    private void compareDirtyScan(ExtentIndex index, Prng prng) {
        boolean[] seen = new boolean[SECTORS];
        long cursor = 0;
        while (cursor != ExtentIndex.CURSOR_END) {
            cursor = index.scan(cursor, ExtentLocation::dirty, 1 + prng.nextInt(5), 1 + prng.nextInt(8),
                    (s, l, location, crc, o, n) -> {
                        for (long k = s; k < s + l; k++) {
                            if (seen[(int) k]) {
                                throw new AssertionError("dirty sector " + k + " scanned twice");
                            }
                            seen[(int) k] = true;
                        }
                    });
        }
        for (int s = 0; s < SECTORS; s++) {
            boolean dirty = modelLocation[s] != NONE && ExtentLocation.dirty(modelLocation[s]);
            if (seen[s] != dirty) {
                throw new AssertionError("sector " + s + (dirty ? " dirty but not scanned" : " scanned but clean"));
            }
        }
    }

    private void compareNodeSlices(ExtentIndex index, Prng prng) {
        TreeMap<Long, Integer> visited = new TreeMap<>();
        long cursor = 0;
        int slices = 0;
        while (cursor != ExtentIndex.CURSOR_END) {
            cursor = index.forEachInNodes(cursor, 1 + prng.nextInt(3), (s, l, location, crc, o, n) ->
                    assertThat(visited.put(s, l)).as("extent at %d visited twice", s).isNull());
            slices++;
        }
        assertThat(visited).hasSize(index.extentCount());
        assertThat(visited.values().stream().mapToLong(Integer::longValue).sum()).isEqualTo(index.cachedSectors());
        assertThat(slices).isLessThanOrEqualTo(index.nodeCount() + 1);
    }

    /** Sums what the listener reports, and what the model says it should have reported. */
    private static final class CountingListener implements ExtentListener {
        /** Sectors per key (bucket << 20 | generation << 1 | dirty). */
        final TreeMap<Long, Long> reported = new TreeMap<>();
        final TreeMap<Long, Long> live = new TreeMap<>();

        void apply(long location, int sign) {
            add(live, ExtentLocation.bucket(location), ExtentLocation.generation(location),
                    ExtentLocation.dirty(location),
                    sign);
        }

        private static void add(TreeMap<Long, Long> map, int bucket, int generation, boolean dirty, long sectors) {
            long key = ((long) bucket << 20) | ((long) generation << 1) | (dirty ? 1 : 0);
            if (map.merge(key, sectors, Long::sum) == 0L) {
                map.remove(key);
            }
        }

        @Override
        public void onAdded(int bucket, int generation, int lengthSectors, boolean dirty) {
            add(reported, bucket, generation, dirty, lengthSectors);
        }

        @Override
        public void onRemoved(int bucket, int generation, int lengthSectors, boolean dirty) {
            add(reported, bucket, generation, dirty, -lengthSectors);
        }

        @Override
        public void onDirtyChanged(int bucket, int generation, int lengthSectors, boolean dirtyNow) {
            add(reported, bucket, generation, !dirtyNow, -lengthSectors);
            add(reported, bucket, generation, dirtyNow, lengthSectors);
        }
    }
}
