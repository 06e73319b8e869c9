package io.blockcache.cli;

import io.blockcache.nbd.NbdLimits;
import java.lang.management.ManagementFactory;

/**
 * The NBD buffer budget beside the JVM: {@code serve}'s default for {@code --nbd-buffer-max} when none is given (it
 * depends on the JVM's direct-memory limit), and the check that a budget fits in it. The other NBD limits are plain
 * options ({@link ServeOptions}) with their defaults there, equal to {@link NbdLimits#DEFAULTS}
 * ({@code ServeSettingsTest} checks).
 */
final class NbdLimitSettings {
    private NbdLimitSettings() {
    }

    /**
     * The default budget, or less where the JVM's direct-memory limit is too small for it with the pool and the
     * connections' read buffers (a small machine's default heap), but never below the minimum: then
     * {@link #directMemoryProblem} says what to do.
     */
    static long defaultBufferBytes(int connectionsMax) {
        long fittingBytes = (directMemoryLimitBytes() - NbdLimits.directBytesBesideBudget(connectionsMax)) & -4096L;
        return Math.max(NbdLimits.BUFFER_BYTES_MIN, Math.min(NbdLimits.DEFAULTS.bufferBytesMax(), fittingBytes));
    }

    /**
     * Refuses limits whose buffers could pass the JVM's direct-memory limit (an allocation failure would then be
     * likely rather than a rare accident).
     *
     * @return a one-line problem for the user, or null
     */
    static String directMemoryProblem(NbdLimits limits) {
        long limitBytes = directMemoryLimitBytes();
        long neededBytes = limits.directMemoryBytesMax();
        if (neededBytes <= limitBytes) {
            return null;
        }
        return "the NBD buffers may need " + neededBytes + " bytes of direct memory (--nbd-buffer-max "
                + limits.bufferBytesMax() + " plus the pool and per-connection buffers) but the JVM allows "
                + limitBytes + "; lower --nbd-buffer-max or raise -XX:MaxDirectMemorySize in BLOCKCACHE_JAVA_OPTS";
    }

    /** -XX:MaxDirectMemorySize, or the JVM's default for it, the heap's maximum. */
    static long directMemoryLimitBytes() {
        try {
            var diagnostics = ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class);
            long configured = Long.parseLong(diagnostics.getVMOption("MaxDirectMemorySize").getValue());
            return configured > 0 ? configured : Runtime.getRuntime().maxMemory();
        } catch (RuntimeException notHotSpot) {
            return Runtime.getRuntime().maxMemory();
        }
    }
}
