package io.blockcache.nbd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SectorLockAndSpanTest {
    @Test
    void overlappingRangesWaitInArrivalOrderAndDisjointOnesDoNot() {
        // Proves the range lock: overlap waits, disjoint proceeds, FIFO among overlapping, no overtaking.
        SectorRangeLock lock = new SectorRangeLock();
        List<String> granted = new ArrayList<>();
        SectorRangeLock.Range a = lock.acquire(0, 8, r -> granted.add("a"));
        lock.acquire(4, 12, r -> granted.add("b"));
        lock.acquire(100, 108, r -> granted.add("c"));
        lock.acquire(10, 11, r -> granted.add("d")); // overlaps waiting b only: must not overtake it
        assertThat(granted).containsExactly("a", "c");
        assertThat(lock.waitingCount()).isEqualTo(2);
        lock.release(a);
        assertThat(granted).containsExactly("a", "c", "b");
        assertThat(lock.waitsTotal()).isEqualTo(2);
    }

    @Test
    void aReusedRangeLocksAgainOnlyAfterItsReleaseAndAllocatesNothing() {
        // Proves the lock's reuse: a caller's own range can be locked again and again without allocation, a second
        // lock before its release fails loudly, and a reused range still waits behind an overlapping one.
        SectorRangeLock lock = new SectorRangeLock();
        List<String> granted = new ArrayList<>();
        SectorRangeLock.Range mine = new SectorRangeLock.Range(r -> granted.add("mine " + r.startSector));
        lock.acquire(mine, 0, 8);
        assertThatThrownBy(() -> lock.acquire(mine, 16, 24)).hasMessageContaining("locked again before its release");
        SectorRangeLock.Range other = lock.acquire(100, 108, r -> granted.add("other"));
        lock.release(mine);
        lock.acquire(mine, 104, 112); // overlaps other: waits
        assertThat(granted).containsExactly("mine 0", "other");
        lock.release(other);
        assertThat(granted).containsExactly("mine 0", "other", "mine 104");
        lock.release(mine);
        assertThat(lock.heldCount()).isZero();

        SectorRangeLock.Range quiet = new SectorRangeLock.Range(r -> { });
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        int pairs = 100_000;
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < pairs; i++) {
            lock.acquire(quiet, i, i + 8);
            lock.release(quiet);
        }
        long bytes = threads.getCurrentThreadAllocatedBytes() - before;
        assertThat(bytes).as("bytes allocated by %d uncontended lock/release pairs", pairs).isLessThan(pairs);
    }

    @Test
    void spansSplitIntoHeadMiddleAndTail() {
        // Proves the piece arithmetic on the interesting shapes of unaligned ranges.
        SectorSpan inside = new SectorSpan(100, 50);
        assertThat(inside.hasHead()).isTrue();
        assertThat(inside.headBytes()).isEqualTo(50);
        assertThat(inside.hasTail()).isFalse();
        assertThat(inside.middleBytes()).isZero();
        SectorSpan across = new SectorSpan(500, 1100); // head 12, middle 1024, tail 64
        assertThat(across.headBytes()).isEqualTo(12);
        assertThat(across.middleOffsetBytes()).isEqualTo(512);
        assertThat(across.middleBytes()).isEqualTo(1024);
        assertThat(across.tailSector()).isEqualTo(3);
        assertThat(across.tailBytes()).isEqualTo(64);
        assertThat(across.firstSector()).isEqualTo(0);
        assertThat(across.endSector()).isEqualTo(4);
        SectorSpan aligned = new SectorSpan(1024, 4096);
        assertThat(aligned.aligned()).isTrue();
        assertThat(aligned.hasHead() || aligned.hasTail()).isFalse();
        assertThat(aligned.middleBytes()).isEqualTo(4096);
        SectorSpan twoPartial = new SectorSpan(510, 4); // 2 bytes in sector 0, 2 in sector 1
        assertThat(twoPartial.headBytes()).isEqualTo(2);
        assertThat(twoPartial.tailBytes()).isEqualTo(2);
        assertThat(twoPartial.middleBytes()).isZero();
    }
}
