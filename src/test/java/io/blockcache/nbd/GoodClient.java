package io.blockcache.nbd;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockcache.loop.Prng;
import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The well-formed client beside the wire fuzz: writes seeded data at random offsets and lengths (any byte
 * alignment) into its own region of "default", reads random ranges back and checks them against what it wrote,
 * reconnects now and then, and runs {@code nbdinfo} when it is installed. Samples direct memory after every
 * operation. Runs on one thread.
 */
final class GoodClient {
    /** Operations per connection before it reconnects (alternating simple and structured replies). */
    static final int OPERATIONS_PER_CONNECTION = 200;
    /** Longest write or read. */
    static final int LENGTH_BYTES_MAX = 256 << 10;
    /** Runs of nbdinfo at most, one per this many operations. */
    static final int NBDINFO_RUNS_MAX = 3;
    static final int NBDINFO_EVERY_OPERATIONS = 1000;
    private static final Path NBDINFO = Path.of("/usr/bin/nbdinfo");

    private final NbdFixture fixture;
    private final Prng prng;
    private final long regionStartBytes;
    private final byte[] model;
    private final BufferPoolMXBean direct;
    private final AtomicLong directPeakBytes;
    private final AtomicLong operations = new AtomicLong();
    private int nbdinfoRuns;

    GoodClient(NbdFixture fixture, Prng prng, long regionStartBytes, BufferPoolMXBean direct,
               AtomicLong directPeakBytes) {
        this.fixture = fixture;
        this.prng = prng;
        this.regionStartBytes = regionStartBytes;
        this.model = new byte[(int) (NbdFixture.VOLUME_BYTES - regionStartBytes)];
        this.direct = direct;
        this.directPeakBytes = directPeakBytes;
    }

    /** Operations completed and checked so far; any thread. */
    long operations() {
        return operations.get();
    }

    /** Works until {@code running} turns false (checked between operations). */
    Void runWhile(AtomicBoolean running) throws Exception {
        boolean structured = false;
        while (running.get()) {
            try (NbdTestClient client = fixture.client().go("default", structured)) {
                for (int i = 0; i < OPERATIONS_PER_CONNECTION && running.get(); i++) {
                    operation(client);
                    long done = operations.incrementAndGet();
                    directPeakBytes.accumulateAndGet(direct.getMemoryUsed(), Math::max);
                    if (done % NBDINFO_EVERY_OPERATIONS == 0 && nbdinfoRuns < NBDINFO_RUNS_MAX
                            && Files.isExecutable(NBDINFO)) {
                        nbdinfo();
                    }
                }
                client.disconnect();
            }
            structured = !structured;
        }
        return null;
    }

    private void operation(NbdTestClient client) throws IOException {
        int lengthBytes = 1 + prng.nextInt(LENGTH_BYTES_MAX);
        int offset = prng.nextInt(model.length - lengthBytes);
        if (prng.chance(0.5)) {
            byte[] data = new byte[lengthBytes];
            prng.nextBytes(data);
            if (client.write(regionStartBytes + offset, data, 0) != 0) {
                throw new IOException("a well-formed WRITE failed at " + offset);
            }
            System.arraycopy(data, 0, model, offset, lengthBytes);
        } else {
            byte[] read = client.read(regionStartBytes + offset, lengthBytes);
            if (!Arrays.equals(read, 0, lengthBytes, model, offset, offset + lengthBytes)) {
                throw new AssertionError("a well-formed READ at " + offset + " (+" + lengthBytes
                        + ") returned other data than was written");
            }
        }
    }

    /** A real NBD client (libnbd's nbdinfo) must see the export's size while the fuzz runs. */
    private void nbdinfo() throws IOException, InterruptedException {
        nbdinfoRuns++;
        String uri = "nbd://127.0.0.1:" + fixture.server.address().getPort() + "/default";
        Process process = new ProcessBuilder(NBDINFO.toString(), "--size", uri).redirectErrorStream(true).start();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("nbdinfo did not finish within 30 s during the fuzz");
        }
        String output = new String(process.getInputStream().readAllBytes()).strip();
        assertThat(process.exitValue()).as("nbdinfo: " + output).isZero();
        assertThat(output).isEqualTo(Long.toString(NbdFixture.VOLUME_BYTES));
    }

    /** Reads the whole region back and checks it against everything written. */
    void verifyAll(NbdTestClient client) throws IOException {
        for (int offset = 0; offset < model.length; offset += 1 << 20) {
            int lengthBytes = Math.min(1 << 20, model.length - offset);
            assertThat(client.read(regionStartBytes + offset, lengthBytes)).as("good region at " + offset)
                    .isEqualTo(Arrays.copyOfRange(model, offset, offset + lengthBytes));
        }
    }
}
