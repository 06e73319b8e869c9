package io.blockcache.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.RandomAccessFile;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileSpaceTest {
    @TempDir
    Path dir;

    @Test
    void aSparseFileCountsOnlyItsWrittenBlocksAsAllocated() throws Exception {
        // Proves the SEEK_DATA walk: a 64 MiB file with 1 MiB written at its start and 1 MiB at 32 MiB has about
        // 2 MiB allocated (file systems may round to their extent size) and 62 MiB of holes.
        Path file = dir.resolve("sparse.img");
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(64L << 20);
            raf.write(new byte[1 << 20]);
            raf.seek(32L << 20);
            raf.write(new byte[1 << 20]);
            raf.getFD().sync();
        }
        FileSpace space = FileSpace.measure("cache", file);
        assumeTrue(space.allocatedBytes() != FileSpace.UNKNOWN, "this file system does not report holes");
        assertThat(space.sizeBytes()).isEqualTo(64L << 20);
        assertThat(space.allocatedBytes()).isBetween(2L << 20, 4L << 20);
        assertThat(space.sparseBytes()).isEqualTo(space.sizeBytes() - space.allocatedBytes());
        assertThat(space.usableBytes()).isPositive();
    }

    @Test
    void onlyHolesBeyondTheFreeSpaceCount() {
        // Proves the arithmetic of the warning: 128 MiB file, 16 MiB allocated, 64 MiB free: 48 MiB cannot fit;
        // with 200 MiB free nothing is beyond; an unknown allocation says nothing.
        long mib = 1L << 20;
        assertThat(new FileSpace("cache", Path.of("c"), 128 * mib, 16 * mib, 64 * mib).sparseBeyondFreeBytes())
                .isEqualTo(48 * mib);
        assertThat(new FileSpace("cache", Path.of("c"), 128 * mib, 16 * mib, 200 * mib).sparseBeyondFreeBytes())
                .isZero();
        assertThat(new FileSpace("cache", Path.of("c"), 128 * mib, FileSpace.UNKNOWN, 0).sparseBeyondFreeBytes())
                .isEqualTo(FileSpace.UNKNOWN);
    }
}
