package io.blockcache.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PageCacheSettleTest {
    @Test
    void readsTheDirtyLineOfMeminfoInBytes() {
        List<String> meminfo = List.of("MemTotal:       24576000 kB", "Dirty:              1536 kB",
                "Writeback:             0 kB");
        assertThat(PageCacheSettle.parseDirtyBytes(meminfo)).isEqualTo(1536L * 1024);
    }

    @Test
    void refusesMeminfoWithoutADirtyLineInKilobytes() {
        assertThatThrownBy(() -> PageCacheSettle.parseDirtyBytes(List.of("MemTotal: 1 kB")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no Dirty line");
        assertThatThrownBy(() -> PageCacheSettle.parseDirtyBytes(List.of("Dirty: 12 MB")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a Dirty line in kB");
    }

    @Test
    void aSettleSeesTheDirtyPagesOfAFileJustWrittenAndWritesThemOut(@TempDir Path dir) throws Exception {
        // 64 MiB written without a force: dirty in the page cache until the kernel or a sync writes them.
        try (FileChannel file = FileChannel.open(dir.resolve("dirty.img"), StandardOpenOption.CREATE_NEW,
                StandardOpenOption.WRITE)) {
            ByteBuffer block = ByteBuffer.allocateDirect(1 << 20);
            for (int i = 0; i < 64; i++) {
                block.clear();
                while (block.hasRemaining()) {
                    file.write(block);
                }
            }
        }
        PageCacheSettle.Settled settled = PageCacheSettle.settle();

        assertThat(settled.dirtyBytesBefore()).isGreaterThanOrEqualTo(32L << 20);
        assertThat(settled.elapsedNs()).isPositive();
        assertThat(settled.toString()).startsWith("page cache settled: ").contains(" MiB dirty written out in ");
    }
}
