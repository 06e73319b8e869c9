package io.blockcache.format;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

class CrcTest {
    @Test
    void appendingA4KiBBlockGivesTheCrcOfBothBackToBack() {
        // Proves the fold a write uses for its span CRC: for prefixes of 0, 1, 511, 4096 and 65536 bytes (random
        // contents), append4KiB(crc(A), crc(B)) equals the CRC32C of A followed by the 4 KiB block B; folding the
        // blocks of a 64 KiB buffer one by one gives the buffer's CRC.
        Random random = new Random(20261204);
        for (int prefixBytes : new int[] {0, 1, 511, 4096, 65536}) {
            byte[] both = new byte[prefixBytes + 4096];
            random.nextBytes(both);
            int prefix = Crc.of(both, 0, prefixBytes);
            int block = Crc.of(both, prefixBytes, 4096);
            assertThat(Crc.append4KiB(prefix, block)).as("prefix of %d bytes", prefixBytes)
                    .isEqualTo(Crc.of(both, 0, both.length));
        }
        byte[] data = new byte[64 << 10];
        random.nextBytes(data);
        int folded = Crc.of(data, 0, 4096);
        for (int from = 4096; from < data.length; from += 4096) {
            folded = Crc.append4KiB(folded, Crc.of(data, from, 4096));
        }
        CRC32C whole = new CRC32C();
        whole.update(data);
        assertThat(folded).isEqualTo((int) whole.getValue());
    }
}
