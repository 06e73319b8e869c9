package io.blockcache.gc;

import static io.blockcache.loop.Checks.check;

import io.blockcache.cache.BucketTable;
import io.blockcache.index.ExtentIndex;
import io.blockcache.index.ExtentLocation;
import io.blockcache.index.ExtentVisitor;
import io.blockcache.index.GenerationSource;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * One mark: walks every volume's index in slices of index leaves, drops stale keys,
 * recounts each bucket's live and dirty sectors, and collects the extents of the moving-GC candidates.
 *
 * <p><b>Why the recount can be compared although the index changes between slices:</b> every change of a
 * bucket's incremental counts is reported ({@link #disturbed}); a bucket untouched for the whole mark must
 * recount to exactly its incremental counts, and a difference is a broken invariant (fail-stop). Disturbed
 * buckets are skipped: their recount mixes before and after.
 *
 * <p>Thread rule: the cache's loop thread.
 */
final class MarkPass implements ExtentVisitor {
    private final BucketTable table;
    private final GenerationSource generations;
    private final List<ExtentIndex> indexes;
    private final BitSet moveCandidates;
    private final int[] liveSectors;
    private final int[] dirtySectors;
    private final BitSet disturbed;
    private final char[] startGenerations;
    private final List<MovePiece> pieces = new ArrayList<>();
    private int volume;
    private long cursor;
    private long nodesVisited;
    private long slices;
    private long staleSeen;
    private long staleDropped;

    MarkPass(BucketTable table, GenerationSource generations, List<ExtentIndex> indexes, BitSet moveCandidates) {
        this.table = table;
        this.generations = generations;
        this.indexes = indexes;
        this.moveCandidates = moveCandidates;
        this.liveSectors = new int[table.bucketCount()];
        this.dirtySectors = new int[table.bucketCount()];
        this.disturbed = new BitSet(table.bucketCount());
        this.startGenerations = new char[table.bucketCount()];
        for (int b = 0; b < startGenerations.length; b++) {
            startGenerations[b] = (char) table.generation(b);
        }
    }

    /** The counts of {@code bucket} changed while the mark runs. */
    void disturbed(int bucket) {
        disturbed.set(bucket);
    }

    /**
     * Marks up to {@code nodes} leaves of the current volume (a slice ends at a volume's end).
     *
     * @return true when every volume has been walked
     */
    boolean slice(int nodes) {
        if (volume == indexes.size()) {
            return true;
        }
        ExtentIndex index = indexes.get(volume);
        staleSeen = 0;
        long next = index.forEachInNodes(cursor, nodes, this);
        if (staleSeen > 0) {
            long again = index.dropStaleInNodes(cursor, nodes, generations);
            check(again == next, "mark: stale sweep of volume %s from sector %s ended at %s, the walk at %s",
                    volume, cursor, again, next);
            staleDropped += staleSeen;
        }
        nodesVisited += Math.min(nodes, index.nodeCount());
        slices++;
        if (next == ExtentIndex.CURSOR_END) {
            volume++;
            cursor = 0;
        } else {
            cursor = next;
        }
        return volume == indexes.size();
    }

    @Override
    public void extent(long startSector, int lengthSectors, long location, int crc32c, int crcOffsetInBucketSectors,
                       int crcLengthSectors) {
        int bucket = ExtentLocation.bucket(location);
        if (ExtentLocation.generation(location) != generations.currentGeneration(bucket)) {
            staleSeen++;
            return;
        }
        liveSectors[bucket] += lengthSectors;
        if (ExtentLocation.dirty(location)) {
            dirtySectors[bucket] += lengthSectors;
        }
        if (moveCandidates.get(bucket)) {
            pieces.add(new MovePiece(volume, startSector, lengthSectors, location, crc32c, crcOffsetInBucketSectors,
                    crcLengthSectors));
        }
    }

    /** Fail-stop unless every undisturbed bucket recounted to exactly its incremental counts. */
    void verify() {
        for (int b = 0; b < liveSectors.length; b++) {
            if (disturbed.get(b)) {
                continue;
            }
            if (liveSectors[b] != table.liveSectors(b) || dirtySectors[b] != table.dirtySectors(b)) {
                throw new IllegalStateException(String.format("GC mark: bucket %d (%s, generation %d) is counted "
                        + "with %d live / %d dirty sectors but its index keys hold %d live / %d dirty sectors",
                        b, table.state(b), table.generation(b), table.liveSectors(b), table.dirtySectors(b),
                        liveSectors[b], dirtySectors[b]));
            }
        }
    }

    /** Bucket generations when the mark started (the guard's next floor). */
    char[] startGenerations() {
        return startGenerations;
    }

    /** Extents found in moving-GC candidates. */
    List<MovePiece> pieces() {
        return pieces;
    }

    long nodesVisited() {
        return nodesVisited;
    }

    long slices() {
        return slices;
    }

    long staleDropped() {
        return staleDropped;
    }
}
