package io.blockcache.volume;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Read admission and promotion on a real volume over memory devices (docs/CACHING.md). */
class ReadAdmissionTest {
    private static final int BUCKETS = 16;
    private static final int BUCKET = VolumeFixture.BUCKET_BYTES;
    private static final long FAR = 64L << 20; // never written: a read there misses

    /** A write-through volume whose cache has 14 of its 16 buckets written: fewer than 20 % free. */
    private static VolumeFixture nearlyFull(AdmissionSettings settings) {
        VolumeFixture f = new VolumeFixture(BUCKETS, 128L << 20, CacheMode.WRITETHROUGH);
        f.loop.execute(() -> f.volume.setAdmissionSettings(settings));
        f.loop.runUntilIdle();
        for (int b = 0; b < 13; b++) {
            assertThat(f.write((long) b * BUCKET, VolumeFixture.pattern(b, BUCKET), false).ok()).isTrue();
        }
        assertThat(f.space.allocator().freeBuckets() * 100).isLessThanOrEqualTo(20 * BUCKETS);
        return f;
    }

    @Test
    void aBlockReadOnceIsNotFilledOnceTheCacheIsShortOfRoomButItsSecondReadFillsIt() {
        // Proves admission: with < 20 % free, the first read of a block fills nothing (counted as rejected), the
        // second fills it (seen twice, more than no victim yet) and the third hits; without admission the first fills.
        VolumeFixture f = nearlyFull(AdmissionSettings.defaults());
        f.read(FAR, 4096);
        assertThat(f.volume.stats().rejectedSectors()).isEqualTo(8);
        assertThat(f.volume.stats().fillSectors()).isZero();
        f.read(FAR, 4096);
        assertThat(f.volume.stats().admittedSectors()).isEqualTo(8);
        assertThat(f.volume.stats().fillSectors()).isEqualTo(8);
        long hits = f.volume.stats().readHitSectors();
        f.read(FAR, 4096);
        assertThat(f.volume.stats().readHitSectors()).isEqualTo(hits + 8);

        VolumeFixture off = nearlyFull(AdmissionSettings.off());
        off.read(FAR, 4096);
        assertThat(off.volume.stats().fillSectors()).isEqualTo(8);
        assertThat(off.volume.stats().rejectedSectors()).isZero();
    }

    @Test
    void everyMissFillsWhileTheCacheHasRoom() {
        // Proves the warm-up rule: on an empty cache (all buckets free) a block read once is filled.
        VolumeFixture f = new VolumeFixture(BUCKETS, 128L << 20, CacheMode.WRITETHROUGH);
        f.read(FAR, 4096);
        assertThat(f.volume.stats().fillSectors()).isEqualTo(8);
        assertThat(f.volume.stats().admittedSectors()).isEqualTo(8);
    }

    @Test
    void aHitInAnOldBucketIsRewrittenIntoTheNewestAndReadsBackTheSameData() {
        // Proves promotion: bucket 0's data was written 12+ bucket opens ago (> 50 % of 16), so a read hit of it is
        // rewritten elsewhere (promoted, counted) and still reads back its data; a hit in the newest data bucket
        // (opened last) is not promoted.
        VolumeFixture f = nearlyFull(AdmissionSettings.defaults());
        long before = f.locationOf(0);
        byte[] expected = VolumeFixture.pattern(0, BUCKET);
        assertThat(java.util.Arrays.copyOf(f.read(0, 4096), 4096))
                .isEqualTo(java.util.Arrays.copyOf(expected, 4096));
        assertThat(f.volume.stats().promotedSectors()).isEqualTo(8);
        assertThat(f.locationOf(0)).isNotEqualTo(before);
        assertThat(java.util.Arrays.copyOf(f.read(0, 4096), 4096))
                .isEqualTo(java.util.Arrays.copyOf(expected, 4096));
        long promoted = f.volume.stats().promotedSectors();
        f.read(12L * BUCKET, 4096);
        assertThat(f.volume.stats().promotedSectors()).isEqualTo(promoted);
    }

    @Test
    void promotionOffLeavesHitsWhereTheyAre() {
        // Proves the knob: with promote_age_percent 0 the same old hit stays at its location.
        VolumeFixture f = nearlyFull(AdmissionSettings.defaults().withPromoteAgePercent(0));
        long before = f.locationOf(0);
        f.read(0, 4096);
        assertThat(f.locationOf(0)).isEqualTo(before);
        assertThat(f.volume.stats().promotedSectors()).isZero();
    }
}
