package io.blockcache.cli;

import io.blockcache.format.CacheSuperblock;
import io.blockcache.format.DecodeResult;
import io.blockcache.format.SuperblockPair;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Path;

/** Test helper: what a stopped serve left in its cache file. */
final class ServeFiles {
    private ServeFiles() {
    }

    /** The superblock in force in {@code cacheFile} (both copies read, the newer valid one chosen). */
    static CacheSuperblock superblock(Path cacheFile) throws IOException {
        byte[] a = new byte[CacheSuperblock.BYTES];
        byte[] b = new byte[CacheSuperblock.BYTES];
        try (RandomAccessFile file = new RandomAccessFile(cacheFile.toFile(), "r")) {
            file.readFully(a);
            file.readFully(b);
        }
        DecodeResult<SuperblockPair> pair = SuperblockPair.read(a, b);
        if (!pair.isOk()) {
            throw new IOException("no valid superblock in " + cacheFile + ": " + pair.error());
        }
        return pair.value().chosen();
    }
}
