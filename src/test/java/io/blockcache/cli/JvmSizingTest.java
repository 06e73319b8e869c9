package io.blockcache.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blockcache.device.FileDeviceOptions;
import io.blockcache.nbd.NbdLimits;
import io.blockcache.volume.Volume;
import io.blockcache.writeback.RunBuffers;
import io.blockcache.writeback.Writeback;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The JVM sizing rule of bin/blockcache serve (docs/OPERATIONS.md §3 "Memory"). */
class JvmSizingTest {
    private static final long MIB = 1L << 20;

    @Test
    void theFlagsKeepResidentMemoryNearWhatIsUsedAndThisJvmAcceptsThemAll() throws Exception {
        // Proves the three residency flags are there and every flag starts a JVM (a misspelt -XX flag would stop
        // serve from starting at all): java <options> -version exits 0.
        List<String> options = JvmSizing.forCache(2L << 30, 1, NbdLimits.DEFAULTS).options();
        assertThat(options).contains("-XX:G1HeapRegionSize=4m", "-XX:GCTimeRatio=4",
                "-Djdk.nio.maxCachedBufferSize=262144");
        List<String> command = new java.util.ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElseThrow());
        command.addAll(options);
        command.add("-version");
        Process jvm = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(jvm.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(jvm.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        assertThat(jvm.exitValue()).as(output).isZero();
    }

    @Test
    void heapScalesWithTheExtentsTheCacheCanHold() {
        // Proves -Xmx = 96 MiB + (cache / 512 B) extents x 64 B x 1.25 + the block CRC table (4 B and a bit per
        // 4 KiB: 2 MiB + 64 KiB for 2 GiB), rounded up to a MiB, computed by hand for 2 GiB and 1 TiB.
        JvmSizing twoGiB = JvmSizing.forCache(2L << 30, 1, NbdLimits.DEFAULTS);
        assertThat(twoGiB.heapBytesMax()).isEqualTo(96 * MIB + (4L << 20) * 64 * 5 / 4 + 3 * MIB); // 419 MiB
        assertThat(twoGiB.options()).contains("-Xmx419m", "-XX:+UseG1GC", "-Xms32m", "-XX:+ExitOnOutOfMemoryError");
        JvmSizing oneTiB = JvmSizing.forCache(1L << 40, 1, NbdLimits.DEFAULTS);
        assertThat(oneTiB.heapBytesMax()).isEqualTo(96 * MIB + (2L << 30) * 64 * 5 / 4 + 1056 * MIB);
        // The worst-case index (every extent one sector, every leaf half full: 58 B) always fits with room to spare.
        for (long cacheBytes = 64 * MIB; cacheBytes <= (1L << 42); cacheBytes *= 4) {
            long indexWorstBytes = cacheBytes / 512 * 58;
            assertThat(JvmSizing.forCache(cacheBytes, 1, NbdLimits.DEFAULTS).heapBytesMax())
                    .isGreaterThan(indexWorstBytes * 5 / 4);
        }
    }

    @Test
    void directMemoryCoversTheNbdBudgetAndEveryDeviceBounceBuffer() {
        // Proves MaxDirectMemorySize covers NbdLimits.directMemoryBytesMax (at least the default budget, even when
        // a smaller one was asked), one bounce buffer per device I/O thread and each backing's writeback run buffers;
        // each volume's read-miss fill copies; a bigger budget raises it.
        JvmSizing sizing = JvmSizing.forCache(1L << 30, 3, NbdLimits.DEFAULTS);
        long devices = 4 * FileDeviceOptions.DEFAULTS.directBytesMax();
        long writeback = 3 * (RunBuffers.IN_USE_BYTES_MAX + RunBuffers.RETAINED_BYTES_MAX);
        long fills = 3 * Volume.FILL_DIRECT_BYTES_MAX;
        assertThat(sizing.directBytesMax())
                .isGreaterThanOrEqualTo(NbdLimits.DEFAULTS.directMemoryBytesMax() + devices + writeback + fills);
        assertThat(sizing.options()).contains("-XX:MaxDirectMemorySize=" + (sizing.directBytesMax() / MIB) + "m");
        NbdLimits small = new NbdLimits(NbdLimits.DEFAULTS.handshakeTimeout(), NbdLimits.DEFAULTS.idleTimeout(),
                NbdLimits.DEFAULTS.replyStallTimeout(), NbdLimits.DEFAULTS.tcpKeepaliveIdle(), 256, 64,
                NbdLimits.BUFFER_BYTES_MIN);
        assertThat(JvmSizing.forCache(1L << 30, 3, small).directBytesMax()).isEqualTo(sizing.directBytesMax());
        NbdLimits big = new NbdLimits(NbdLimits.DEFAULTS.handshakeTimeout(), NbdLimits.DEFAULTS.idleTimeout(),
                NbdLimits.DEFAULTS.replyStallTimeout(), NbdLimits.DEFAULTS.tcpKeepaliveIdle(), 256, 64, 1L << 30);
        assertThat(JvmSizing.forCache(1L << 30, 3, big).directBytesMax())
                .isEqualTo(sizing.directBytesMax() + (1L << 30) - NbdLimits.DEFAULTS.bufferBytesMax());
    }

    @Test
    void warnsWhenTheHeapLimitPassesTheMachinesMemoryAndRefusesNonsense() {
        // Proves an operator hears when the worst case outgrows RAM, and bad inputs are refused with a message.
        assertThat(JvmSizing.forCache(2L << 30, 1, NbdLimits.DEFAULTS).ramWarning(16L << 30)).isNull();
        assertThat(JvmSizing.forCache(1L << 40, 1, NbdLimits.DEFAULTS).ramWarning(16L << 30)).contains("more than 3/4")
                .contains("16384 MiB of RAM");
        assertThatThrownBy(() -> JvmSizing.forCache(0, 1, NbdLimits.DEFAULTS)).hasMessageContaining("must be positive");
    }

    @Test
    void everyJournaledVolumeButTheFirstAddsItsLogChunksToTheHeap() {
        // Proves the journaled budget: one volume logging fits the base's slack; each further volume configured with
        // ordering=journaled adds the 32 MiB its logging may hold; other knobs and orderings add nothing.
        long plain = JvmSizing.forCache(1L << 30, 3, 0, NbdLimits.DEFAULTS).heapBytesMax();
        assertThat(JvmSizing.forCache(1L << 30, 3, 0, 1, NbdLimits.DEFAULTS).heapBytesMax()).isEqualTo(plain);
        assertThat(JvmSizing.forCache(1L << 30, 3, 0, 3, NbdLimits.DEFAULTS).heapBytesMax())
                .isEqualTo(plain + 2 * Writeback.BACKING_LOG_HEAP_BYTES_MAX);
        assertThat(JvmSizing.journaledVolumes(Map.of("writeback.a.ordering", "journaled",
                "writeback.b.ordering", " JOURNALED", "writeback.c.ordering", "epochs", "volume.d.mode", "journaled",
                "writeback.e.rate_max", "journaled"))).isEqualTo(2);
    }
}
