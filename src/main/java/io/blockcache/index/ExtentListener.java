package io.blockcache.index;

/**
 * Told about every change of cached and dirty sectors per bucket, so the cache can keep per-bucket
 * live and dirty counts incrementally instead of rescanning the index.
 *
 * <p>Splitting or trimming does not report pieces that merely stay; only sectors that enter or leave
 * a bucket, or change dirtiness, are reported. Calls carry the key's generation so that a listener can
 * ignore reports about stale keys (the bucket's counts were reset when its generation was bumped).
 * Called synchronously on the owner thread in the middle of an index operation: a listener must not
 * call back into the index.
 */
public interface ExtentListener {
    /** A listener that ignores everything. */
    ExtentListener NONE = new ExtentListener() {
        @Override
        public void onAdded(int bucket, int generation, int lengthSectors, boolean dirty) {}

        @Override
        public void onRemoved(int bucket, int generation, int lengthSectors, boolean dirty) {}

        @Override
        public void onDirtyChanged(int bucket, int generation, int lengthSectors, boolean dirtyNow) {}
    };

    /** {@code lengthSectors} sectors of {@code bucket} became referenced by the index. */
    void onAdded(int bucket, int generation, int lengthSectors, boolean dirty);

    /** {@code lengthSectors} sectors of {@code bucket} are no longer referenced by the index. */
    void onRemoved(int bucket, int generation, int lengthSectors, boolean dirty);

    /** {@code lengthSectors} referenced sectors of {@code bucket} changed their dirty bit to {@code dirtyNow}. */
    void onDirtyChanged(int bucket, int generation, int lengthSectors, boolean dirtyNow);
}
